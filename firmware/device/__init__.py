"""The device program itself: the loop that ties camera, buttons, strip, store and page
together, its config, voice, systemd notifications and journal lines.

``loop`` is ``DeviceLoop``; ``config`` reads and checks ``config.toml``; ``voice`` speaks;
``notify`` talks to systemd; ``logs`` writes journal priorities; ``camera_frame`` takes one
frame as the device would; ``eye_snapshot`` hands each frame read to the phone page's
camera view; ``memory`` has freed frames given back to the system. It may import the
engine, vision, hardware and the store, table, web and club rooms; nothing below it
imports it but the doctor, the demo and the commands.
"""
