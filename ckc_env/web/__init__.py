"""``ckc-serve``: the table in a browser (the ``web`` extra: Pillow, for the pictures).

A person plays a game against any registered player or the agent files the server was started
with, and watches any replay step by step, seeing exactly what a seat sees: every picture is
:func:`ckc_env.picture.draw` of the seat's ``PlayerView``, as ``ckc-play --video`` draws it.

| file | role |
|---|---|
| ``tables.py`` | the games in play and the replays: what a request may do to them, checked |
| ``server.py`` | the HTTP server (the standard library's): routes, bounds on what a client sends, errors |
| ``command.py`` | ``ckc-serve``'s arguments |
| ``page.html`` | the page: the table's picture, the legal choices as buttons, the replay controls |
"""
