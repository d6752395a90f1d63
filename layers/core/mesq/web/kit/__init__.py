"""The pages' framework: the request pipeline, forms, rendering, security headers, sessions,
flash notices, login throttling and the one-rule request values."""
