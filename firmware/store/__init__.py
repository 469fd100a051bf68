"""What the device keeps on its card: the event store, its repair and mark, files replaced
whole, and the coach's reading of the store.

``eventstore`` is the SQLite event log the device appends to, ``schema`` its tables and
row and undo checksums, ``derived`` the history tables (matches, games) and the digest that
ties them to the events, ``repair`` the verification at every open and the repair of a
damaged store, ``pages`` the reading of rows straight from the file's pages that a repair
falls back on, ``mark`` the acknowledged-event mark beside it, ``copy`` the second copy of
every row, ``chain`` the links that tie each row to the one before it, ``files`` the
power-cut-safe way every other file is written, ``coach`` the stats and reviews read from
a store by period, ``export`` a match as its game log. It may import the engine only, so
the web page, the club and the commands can all read a store.
"""
