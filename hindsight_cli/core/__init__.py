"""The core: every business rule of hindsight, once. ``Store`` (store.py) is a façade over these
modules; the faces (cli/, mcp_server/, hooks/) parse, make one call here through ``Store`` and
render."""
