"""What a seat may know, as a float32 vector from its own point of view.

One layout for every rule set and player count (other seats are padded to five), so a
policy can move between 2 and 6 players. ``LAYOUT`` maps each name to its slice. The first
175 entries are 0/1 and every one-hot block has a last slot for "none", so exactly one
entry of it is set:

================  ====  ===============================================================
name              size  meaning
================  ====  ===============================================================
hand              36    1 for each card the observer holds
discard           36    1 for each card in the discard pile (public), top card included
others_in         5     1 while the seat that many places after the observer is in
others_dealer     5     1 for the dealer (the leader under leader_plays) among them
own_dealer        1     1 if the observer is the dealer
top_card          37    one-hot top card; last slot: empty table
ordered_suit      5     one-hot suit ordered by the last queen; last slot: none
phase             6     one-hot PLAY, AFTER_DRAW, COVER, ORDER, RESPOND; last: match over
drawn_card        37    one-hot card just drawn, only for the drawer in AFTER_DRAW; last: none
to_act            7     one-hot seat to act, counted clockwise from the observer (0 = self);
                        last slot: nobody (match over)
pending           1     accumulated stacked penalty / 36
stock_size        1     cards in the stock / 36
others_hand_size  5     hand sizes / 36 of the seats after the observer, clockwise
others_total      5     their totals / target
own_total         1     own total / target
num_players       1     players / 6
================  ====  ===============================================================

A rule set with ``last_card_call`` (docs/rules.md §12) appends one entry, ``call`` (1 in its
player's CALL decision, where the phase block shows PLAY): :func:`obs_size` and
:func:`layout` give the size and slices of a rule set; ``OBS_SIZE`` and ``LAYOUT`` are those
of every 36-card rule set without the call, unchanged. With ``deck: 52`` (§12) the card
blocks follow the deck: hand and discard have 52 entries, top_card and drawn_card 53, and
the card counts (pending, stock_size, others_hand_size) are divided by 52: 253 entries.

"Others" are the seats observer+1, observer+2, ... (mod players); entries for seats beyond
the player count are zero. Nothing hidden enters: the other hands and the stock order never
change the vector (``tests/test_observation.py``).

**Bounds.** :func:`observation_space` bounds every entry from the rule set: the 0/1 entries
in [0, 1]; card counts by the deck (at most 1); ``pending`` by :func:`pending_bound`; the
totals by :func:`total_bounds` over the target. Upwards a total is bounded (the target plus
one round's most points); downwards the rules set no floor wherever a card can score below
zero (a finish bonus can be earned round after round), so the lower bound is the lowest
total the engine holds (int32) over the target. The values are already scaled: a min-max
normaliser over these bounds (SuperSuit's ``normalize_obs_v0``) would flatten the totals.

**Global state.** :func:`global_state` is the table from no seat's point of view, every hand
visible (PettingZoo's ``state()``, what a centralised critic reads): :func:`state_layout`,
:func:`state_size` (371 entries for 36 cards), :func:`state_space`, ``STATE_VERSION``.

**Where it lives.** :mod:`.fields` (the layout and the lookup tables), :mod:`.encode`
(:func:`observe`, :func:`observe_one`), :mod:`.decode` (:class:`ObservationView`),
:mod:`.bounds` (the bounds and :func:`observation_space`) and :mod:`.global_view` (the
global state); this package re-exports their names.
"""

from .bounds import observation_space, pending_bound, total_bounds
from .decode import ObservationView
from .encode import ActingPolicy, observe, observe_one, policy_actions
from .fields import (
    _FIELDS,
    CARD_SCALE,
    LAYOUT,
    MAX_OTHERS,
    NUM_FLAGS,
    NUM_PHASES,
    OBS_SIZE,
    OBSERVATION_VERSION,
    ONE_HOT_FIELDS,
    layout,
    obs_size,
)
from .global_view import (
    STATE_VERSION,
    global_state,
    state_layout,
    state_size,
    state_space,
)

__all__ = [
    "CARD_SCALE",
    "LAYOUT",
    "MAX_OTHERS",
    "NUM_FLAGS",
    "NUM_PHASES",
    "OBSERVATION_VERSION",
    "OBS_SIZE",
    "ONE_HOT_FIELDS",
    "STATE_VERSION",
    "_FIELDS",
    "ActingPolicy",
    "ObservationView",
    "global_state",
    "layout",
    "obs_size",
    "observation_space",
    "observe",
    "observe_one",
    "pending_bound",
    "policy_actions",
    "state_layout",
    "state_size",
    "state_space",
    "total_bounds",
]
