"""The Chespel run-time: what a built engine contains besides python-chess and its program.

Everything in this package imports only the standard library, python-chess and sibling
run-time modules, because it is copied into the self-contained executable
(docs/reference/chespel.md#command-line).
"""
