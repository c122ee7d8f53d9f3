"""The pure decision core: plain data in, plain data out, time passed in; no Home Assistant."""
