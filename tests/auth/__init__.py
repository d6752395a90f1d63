"""Tests of mesq/auth: users, personal access tokens and their lookup cache."""
