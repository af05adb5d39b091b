"""Several browser profiles, one provider (SPEC §3): the hand-off server on the provider, the
follower link on each standby host, the followers' page tools and the merged tree."""
