#include "selfplay/network_placer.h"

#include <vector>

#include "net/sample.h"
#include "rules/movegen.h"

namespace fuseki {

std::vector<net::Evaluation> counted_pass(net::Evaluator& network,
                                          std::span<const Position* const> batch,
                                          PassCount& count) {
  ++count.passes;
  count.positions += batch.size();
  return network.evaluate(batch);
}

namespace {

// One forward pass over the requests' positions.
template <class Request>
std::vector<net::Evaluation> evaluate(net::Evaluator& network, std::span<Request> requests,
                                      PassCount& count) {
  std::vector<const Position*> batch;
  for (const Request& r : requests) batch.push_back(r.position);
  return counted_pass(network, batch, count);
}

}  // namespace

void NetworkPlacer::place(std::span<PlacementRequest> requests) {
  if (requests.empty()) return;
  std::vector<net::Evaluation> evals = evaluate(network_, requests, count_);
  for (size_t i = 0; i < requests.size(); ++i) {
    PlacementRequest& r = requests[i];
    const Position& pos = *r.position;
    r.move = net::sample_drop(pos, evals[i].policy.data(), temperature_, *r.rng);
    int action = net::policy_index(pos, r.move);
    MoveList legal;
    generate_legal(pos, legal);
    r.decision = PlacementDecision{int16_t(action),
                                   int16_t(legal.size),
                                   action >= 0 ? evals[i].policy[size_t(action)] : 0.0f,
                                   evals[i].value,
                                   {}};
  }
}

void NetworkChooser::choose(std::span<ChoiceRequest> requests) {
  if (requests.empty()) return;
  std::vector<net::Evaluation> evals = evaluate(network_, requests, count_);
  for (size_t i = 0; i < requests.size(); ++i) {
    // The value is the mover's; Sente moves after the kings, but the rule is Sente's view.
    float sente = requests[i].position->side_to_move() == BLACK ? evals[i].value : -evals[i].value;
    requests[i].takes = sente > 0 ? BLACK : WHITE;
  }
}

}  // namespace fuseki
