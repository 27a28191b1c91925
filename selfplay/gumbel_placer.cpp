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

namespace {

// A game's search state between the two passes.
struct Search {
  std::vector<int> legal;     // policy indices of the legal drops
  std::vector<double> logp;   // log prior, per legal drop (a float's logarithm)
  std::vector<double> noise;  // Gumbel(0, 1), per legal drop
  std::vector<int> chosen;    // positions in `legal` of the candidates
  size_t first_child = 0;     // the candidates' children in the child batch
};

}  // namespace

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

  // Gumbel top-k without replacement: the k largest g(a) + log pi(a) among the legal drops.
  std::vector<Search> searches(requests.size());
  std::vector<Position> children;
  uint8_t mask[net::kPolicySize];
  for (size_t i = 0; i < requests.size(); ++i) {
    const PlacementRequest& r = requests[i];
    Search& s = searches[i];
    if (net::legal_mask(*r.position, mask) == 0)
      throw std::logic_error("gumbel placer asked for a drop where none is legal");
    for (int a = 0; a < net::kPolicySize; ++a) {
      if (!mask[a]) continue;
      s.legal.push_back(a);
      s.logp.push_back(double(std::log(std::max(prior[i].policy[size_t(a)], 1e-30f))));
      double u = std::max(r.rng->uniform(), 1e-300);
      s.noise.push_back(-std::log(-std::log(u)));
    }
    s.chosen.resize(s.legal.size());
    std::iota(s.chosen.begin(), s.chosen.end(), 0);
    size_t k = std::min(s.legal.size(), size_t(std::max(options_.k, 1)));
    auto score = [&s](int j) { return s.noise[size_t(j)] + s.logp[size_t(j)]; };
    std::partial_sort(s.chosen.begin(), s.chosen.begin() + long(k), s.chosen.end(),
                      [&](int a, int b) { return score(a) > score(b); });
    s.chosen.resize(k);
    s.first_child = children.size();
    for (int j : s.chosen) {
      children.push_back(*r.position);
      children.back().do_move(net::policy_move(*r.position, s.legal[size_t(j)]));
    }
  }
  std::vector<const Position*> batch;
  for (const Position& c : children) batch.push_back(&c);
  std::vector<net::Evaluation> child = counted_pass(network_, batch, count_);

  auto sigma = [this](double q) { return search_sigma(q, options_.c_visit, options_.c_scale); };
  for (size_t i = 0; i < requests.size(); ++i) {
    PlacementRequest& r = requests[i];
    const Search& s = searches[i];
    const float parent_value = prior[i].value;
    // Completed q: the evaluated drops' own, the parent's value for the others.
    std::vector<double> q(s.legal.size(), parent_value);
    int best = -1;
    size_t best_child = 0;
    double best_score = -INFINITY;
    for (size_t c = 0; c < s.chosen.size(); ++c) {
      size_t j = size_t(s.chosen[c]);
      q[j] = drop_value(*r.position, children[s.first_child + c], child[s.first_child + c].value);
      double score = s.noise[j] + s.logp[j] + sigma(q[j]);
      if (score > best_score) {
        best_score = score;
        best = int(j);
        best_child = s.first_child + c;
      }
    }
    // pi' = softmax(log pi + sigma(completed q)) over the legal drops.
    std::vector<double> improved(s.legal.size());
    improved_policy(s.logp.data(), q.data(), q.size(), options_.c_visit, options_.c_scale,
                    improved.data());
    PlacementDecision d;
    d.action = int16_t(s.legal[size_t(best)]);
    d.legal = int16_t(s.legal.size());
    d.prob = prior[i].policy[size_t(d.action)];
    d.value = parent_value;
    for (int j : s.chosen)
      d.target.push_back({int16_t(s.legal[size_t(j)]), float(improved[size_t(j)])});
    r.move = net::policy_move(*r.position, d.action);
    r.decision = std::move(d);
    chosen_[children[best_child].key()] = std::move(child[best_child]);
  }
  chosen_weights_ = network_.weights_version();
}

}  // namespace fuseki
