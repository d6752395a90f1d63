"""The kernel: values, errors, keys, the request context and the ports and spec every layer reads."""
