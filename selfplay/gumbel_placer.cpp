#include "selfplay/gumbel_placer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "selfplay/network_placer.h"
#include "selfplay/search_target.h"

namespace fuseki {

GumbelDraw gumbel_top_k(const Position& pos, const std::vector<float>& policy, Rng& rng, int k,
                        bool noise) {
  GumbelDraw s;
  uint8_t mask[net::kPolicySize];
  if (net::legal_mask(pos, mask) == 0)
    throw std::logic_error("search asked for a drop where none is legal");
  for (int a = 0; a < net::kPolicySize; ++a) {
    if (!mask[a]) continue;
    s.legal.push_back(a);
    s.logp.push_back(double(std::log(std::max(policy[size_t(a)], 1e-30f))));
    double u = noise ? std::max(rng.uniform(), 1e-300) : 0;
    s.noise.push_back(noise ? -std::log(-std::log(u)) : 0.0);
  }
  s.chosen.resize(s.legal.size());
  std::iota(s.chosen.begin(), s.chosen.end(), 0);
  size_t n = std::min(s.legal.size(), size_t(std::max(k, 1)));
  auto score = [&s](int j) { return s.noise[size_t(j)] + s.logp[size_t(j)]; };
  std::partial_sort(s.chosen.begin(), s.chosen.begin() + long(n), s.chosen.end(),
                    [&](int a, int b) { return score(a) > score(b); });
  s.chosen.resize(n);
  return s;
}

PlacementDecision gumbel_decision(const GumbelDraw& draw, const std::vector<double>& q,
                                  const net::Evaluation& prior, double c_visit, double c_scale,
                                  int& best) {
  best = -1;
  double best_score = -INFINITY;
  for (int j : draw.chosen) {
    double score =
        draw.noise[size_t(j)] + draw.logp[size_t(j)] + search_sigma(q[size_t(j)], c_visit, c_scale);
    if (score > best_score) {
      best_score = score;
      best = j;
    }
  }
  // pi' = softmax(log pi + sigma(completed q)) over the legal drops.
  std::vector<double> improved(draw.legal.size());
  improved_policy(draw.logp.data(), q.data(), q.size(), c_visit, c_scale, improved.data());
  PlacementDecision d;
  d.action = int16_t(draw.legal[size_t(best)]);
  d.legal = int16_t(draw.legal.size());
  d.prob = prior.policy[size_t(d.action)];
  d.value = prior.value;
  for (int j : draw.chosen)
    d.target.push_back({int16_t(draw.legal[size_t(j)]), float(improved[size_t(j)])});
  return d;
}

void GumbelPlacer::place(std::span<PlacementRequest> requests) {
  if (requests.empty()) return;
  // The parents: the last call's chosen children where they are (same weights), else a pass.
  if (network_.weights_version() != chosen_weights_) chosen_.clear();
  std::vector<net::Evaluation> prior(requests.size());
  std::vector<const Position*> parents;
  std::vector<size_t> unseen;
  for (size_t i = 0; i < requests.size(); ++i) {
    auto it = chosen_.find(requests[i].position->key());
    if (it != chosen_.end()) {
      prior[i] = std::move(it->second);
      chosen_.erase(it);
      ++reused_;
    } else {
      parents.push_back(requests[i].position);
      unseen.push_back(i);
    }
  }
  chosen_.clear();
  if (!parents.empty()) {
    std::vector<net::Evaluation> fresh = counted_pass(network_, parents, count_);
    for (size_t u = 0; u < unseen.size(); ++u) prior[unseen[u]] = std::move(fresh[u]);
  }

  // Gumbel top-k without replacement, then each candidate's child in one pass.
  std::vector<GumbelDraw> draws(requests.size());
  std::vector<size_t> first_child(requests.size());
  std::vector<Position> children;
  for (size_t i = 0; i < requests.size(); ++i) {
    const PlacementRequest& r = requests[i];
    draws[i] = gumbel_top_k(*r.position, prior[i].policy, *r.rng, options_.k);
    first_child[i] = children.size();
    for (int j : draws[i].chosen) {
      children.push_back(*r.position);
      children.back().do_move(net::policy_move(*r.position, draws[i].legal[size_t(j)]));
    }
  }
  std::vector<const Position*> batch;
  for (const Position& c : children) batch.push_back(&c);
  std::vector<net::Evaluation> child = counted_pass(network_, batch, count_);

  for (size_t i = 0; i < requests.size(); ++i) {
    PlacementRequest& r = requests[i];
    const GumbelDraw& s = draws[i];
    // Completed q: the evaluated drops' own, the parent's value for the others.
    std::vector<double> q(s.legal.size(), prior[i].value);
    std::vector<size_t> child_of(s.legal.size());
    for (size_t c = 0; c < s.chosen.size(); ++c) {
      size_t j = size_t(s.chosen[c]), at = first_child[i] + c;
      q[j] = drop_value(*r.position, children[at], child[at].value);
      child_of[j] = at;
    }
    int best = -1;
    r.decision = gumbel_decision(s, q, prior[i], options_.c_visit, options_.c_scale, best);
    r.move = net::policy_move(*r.position, r.decision->action);
    chosen_[children[child_of[size_t(best)]].key()] = std::move(child[child_of[size_t(best)]]);
  }
  chosen_weights_ = network_.weights_version();
}

}  // namespace fuseki
