"""The configuration and the composition root (`Services`): every adapter built once per process."""
