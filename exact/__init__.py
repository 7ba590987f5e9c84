"""Exact formulations, one module per problem (filled in by the solver registry below)."""
