"""Several browser profiles, one provider: the hand-off server on the provider, the
follower link on each standby host, the followers' page tools and the merged tree.

Modules: `handoff` (ProfileHandoff: one host's side, whatever its role), `handoff_server`,
`handoff_limits` (what a hostile follower or hand-off client can make it hold),
`follower_link`, `merge` (the merged tree), `merge_layer`, `follower_tools`; the messages
are `protocol/handoff.py`.
"""
