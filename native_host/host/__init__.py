"""The reference desktop host (SPEC §7)."""
