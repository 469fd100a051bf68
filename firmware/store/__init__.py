"""What the device keeps on its card: the event store, its repair and mark, files replaced
whole, and the coach's reading of the store.

``eventstore`` is the SQLite event log the device appends to, ``schema`` its tables and
row checksum, ``repair`` the verification at every open and the repair of a damaged store,
``mark`` the acknowledged-event mark beside it, ``files`` the power-cut-safe way every
other file is written, ``coach`` the stats and reviews read from a store by period. It may
import the engine only, so the web page, the club and the commands can all read a store.
"""
