"""Which addresses the phone page listens on and answers: the local network only.

Kept apart from the server so the config can check ``[web] host`` without
importing the web framework.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["HostError", "check_host", "is_local_address", "is_local_name", "lan_address",
           "LOCAL_SUFFIXES"]

#: Name suffixes home networks use (mDNS, routers' own domains): never names on the internet.
LOCAL_SUFFIXES = (".local", ".lan", ".home", ".home.arpa", ".internal", ".localdomain")


class HostError(ValueError):
    """A ``[web] host`` the page must not or cannot listen on."""


def is_local_address(host: str) -> bool:
    """Whether ``host`` (an IP address) belongs to a local network, not the internet:
    private ranges, link-local, loopback, carrier-grade NAT (VPNs such as Tailscale)."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global and not ip.is_multicast and not ip.is_unspecified


def is_local_name(host_header: str) -> bool:
    """Whether a request's ``Host`` header names this board on a local network: an IP
    address, a single-label name (``cribbage``, ``localhost``) or a name under a home
    network's suffix (``raspberrypi.local``).

    Why: a web page on the internet can point its own domain at a local address (DNS
    rebinding) and talk to the board as its "own" site; its requests then carry that
    public name in ``Host``.
    """
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]")[0]
    elif host.count(":") == 1:
        host = host.split(":")[0]
    host = host.rstrip(".")
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return "." not in host or host.endswith(LOCAL_SUFFIXES)
    return True


def check_host(host: str, *, allow_public: bool = False) -> str:
    """Checks the ``[web] host`` setting: an IP address to bind (``0.0.0.0`` or ``::``:
    every interface, and each client is still checked) or ``localhost``. A public
    address is refused unless ``allow_public``.

    >>> check_host("localhost")
    '127.0.0.1'
    """
    if host == "localhost":
        return "127.0.0.1"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise HostError(f"host must be an IP address such as \"0.0.0.0\" (every interface) "
                        f"or \"192.168.1.20\", or \"localhost\", not {host!r}") from None
    if ip.is_multicast:
        raise HostError(f"host {host!r} is a multicast address, not one to listen on")
    if not ip.is_unspecified and not is_local_address(host) and not allow_public:
        raise HostError(f"host {host!r} is a public address: the phone page is for the local "
                        "network (set allow_public = true to serve it anyway)")
    return str(ip)


def lan_address() -> str | None:
    """This machine's address on the local network: the source address of its route out.
    Connecting a UDP socket sends nothing; without a network it fails and we say None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("0.") else address
