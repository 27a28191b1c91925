// Per-generation statistics of self-play games: what users look at to see what the policy
// learned (Sente's score, the move-41 ruling rate, game length, the "triple rocket" rate).
#pragma once

#include <string>
#include <vector>

#include "selfplay/shard.h"

namespace fuseki {

struct GenerationStats {
  int games = 0, voids = 0, draws = 0;
  double sente_score = 0;         // Sente's score, draws half, void games left out
  double ruling41_rate = 0;       // games decided by the move-41 ruling
  double mean_moves = 0;          // moves of ordinary play
  double stack_rate[2] = {0, 0};  // rook and both lances on one file, per side
};

GenerationStats generation_stats(const std::vector<GameRow>& games);
std::string to_json(const GenerationStats& s);

// A 95 % Wilson interval for a score of `points` out of `n`.
void wilson_interval(double points, int n, double& low, double& high);

}  // namespace fuseki
