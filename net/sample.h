// Choosing a drop from a policy (no LibTorch).
#pragma once

#include "rules/position.h"
#include "rules/rng.h"

namespace fuseki::net {

// Draws a legal drop of the side to move from `policy` (kPolicySize probabilities, the
// Evaluator's output) at `temperature`: weights p^(1/T) over the legal drops. T <= 0 takes the
// most probable legal drop (the lowest index on ties). Legal drops the policy gives no weight
// are drawn only when every legal drop has none (then uniformly). MOVE_NONE when the position
// has no legal drop (not in placement).
Move sample_drop(const Position& pos, const float* policy, double temperature, Rng& rng);

}  // namespace fuseki::net
