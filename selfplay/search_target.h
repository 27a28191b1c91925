// The Gumbel search's arithmetic shared by the placer (selfplay/gumbel_placer.h) and the
// trainer's reanalysis (train/trainer.h): a drop's value from the value head's output at its
// child, and the improved policy pi' = softmax(log pi + sigma(completed q)). No LibTorch.
#pragma once

#include <cstddef>

#include "rules/position.h"

namespace fuseki {

// The value of a drop for the player who decides it, from the value head's output at the child
// (which is the child's side to move's). Balance's kings: the placer drops both, so the child of
// the first is valued by the same player; after the second the chooser takes the side the value
// favours, which leaves the placer -|v|. A child whose move-41 ruling is decided
// (ruling41_decided) is a win for Sente and a loss for Gote, whatever the head says.
float drop_value(const Position& parent, const Position& child, float child_value);

// The move-41 ruling decides the game whatever is dropped from here: Position::ruling41_certain
// (a stepping attack on Gote's king during placement, or the ruling itself after ply 40), or
// Gote's last drop to come with its king attacked along more lines than one drop can close.
bool ruling41_decided(const Position& pos);

// sigma(q) = (c_visit + 1) * c_scale * (q + 1) / 2: every candidate has one visit.
double search_sigma(double q, double c_visit, double c_scale);

// pi'(a) = softmax(logp(a) + sigma(q(a))) over n legal drops, written to `out` (n entries).
// q holds the evaluated drops' values and the parent's value for the others ("completed q").
void improved_policy(const double* logp, const double* q, size_t n, double c_visit, double c_scale,
                     double* out);

// Gumbel MuZero's mixed value v_mix (Danihelka et al. 2022, "Policy improvement by planning
// with Gumbel", appendix D) with one visit a candidate: the completed value of the drops not
// evaluated, (v + n sum_c pi(c) q(c) / sum_c pi(c)) / (1 + n) over the n candidates c
// (positions in logp and q given by `chosen`). Where the candidates' q come from another judge
// than the value v (the rollout placer's engine), v alone would give the drops never tried
// whatever v's bias is; v_mix gives them the prior-weighted mean of what was tried.
double mixed_value(double value, const double* logp, const double* q, const int* chosen, size_t n);

}  // namespace fuseki
