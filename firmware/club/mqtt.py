"""paho-mqtt clients set up from ``[club]``: one place for TLS, credentials and reconnects.

paho is imported here only, lazily, so the device starts without it when no
``[club]`` table is configured.
"""

from __future__ import annotations

import ssl
from typing import Any

from firmware.club.settings import Broker

__all__ = ["make_client"]


def make_client(broker: Broker, *, client_id: str, clean_session: bool = True,
                username: str | None = None, password: str | None = None,
                ca_file: str | None = None, reconnect_max_s: int = 10,
                will: tuple[str, bytes] | None = None) -> Any:
    """A paho client (v2 callback API, MQTT 3.1.1) for ``broker``, not yet connected."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean_session, protocol=mqtt.MQTTv311)
    if username is not None:
        client.username_pw_set(username, password)
    if broker.tls:
        client.tls_set(ca_certs=ca_file, cert_reqs=ssl.CERT_REQUIRED)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=reconnect_max_s)
    client.max_inflight_messages_set(100)
    return client
