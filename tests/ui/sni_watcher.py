"""A minimal StatusNotifierWatcher: the D-Bus tray host that desktops run (KDE, GNOME
with the AppIndicator extension, most Linux panels), for tests on a private bus.

    DBUS_SESSION_BUS_ADDRESS=… python tests/ui/sni_watcher.py

Prints `ready`, then `registered <service>` for each tray icon that registers.
Qt's QSystemTrayIcon is available on Linux when this watcher says a host is
registered; the icon then exports itself as a StatusNotifierItem with its
tooltip and a com.canonical.dbusmenu menu, which tests read and click.
"""

from __future__ import annotations

import os
import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.kde.StatusNotifierWatcher"
PATH = "/StatusNotifierWatcher"
INTROSPECTION = """<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
  <interface name="org.freedesktop.DBus.Properties">
    <method name="Get">
      <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/>
    </method>
    <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
  </interface>
  <interface name="org.freedesktop.DBus.Introspectable">
    <method name="Introspect"><arg type="s" direction="out"/></method>
  </interface>
</node>
"""


def main() -> None:
    conn = open_dbus_connection(bus=os.environ["DBUS_SESSION_BUS_ADDRESS"])
    conn.send_and_get_reply(message_bus.RequestName(NAME))
    items: list[str] = []
    print("ready", flush=True)

    def properties() -> dict[str, tuple[str, object]]:
        return {
            "RegisteredStatusNotifierItems": ("as", list(items)),
            "IsStatusNotifierHostRegistered": ("b", True),
            "ProtocolVersion": ("i", 0),
        }

    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        member = msg.header.fields.get(HeaderFields.member)
        sender = str(msg.header.fields.get(HeaderFields.sender, ""))
        if member == "Introspect":
            conn.send(new_method_return(msg, "s", (INTROSPECTION,)))
        elif member == "Get":
            _interface, name = msg.body
            conn.send(new_method_return(msg, "v", (properties()[name],)))
        elif member == "GetAll":
            conn.send(new_method_return(msg, "a{sv}", (properties(),)))
        elif member == "RegisterStatusNotifierItem":
            (service,) = msg.body
            # An item may register by object path (then the sender is its service).
            items.append(sender if service.startswith("/") else service)
            conn.send(new_method_return(msg))
            print(f"registered {items[-1]} {sender}", flush=True)
        elif member == "RegisterStatusNotifierHost":
            conn.send(new_method_return(msg))
        else:
            conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))


if __name__ == "__main__":
    sys.exit(main())
