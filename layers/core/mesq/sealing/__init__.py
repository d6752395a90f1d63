"""Secrets encrypted at rest (the reading credentials of docs/contract.md §13): a `Sealer` port
with two adapters, a local key file for `mesq serve` and KMS envelope encryption on AWS."""
