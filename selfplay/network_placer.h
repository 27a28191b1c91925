// The policy network as placer and its value head as chooser: one forward pass for all the
// requests of a call.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/placer.h"
#include "net/evaluator.h"

namespace fuseki {

// One forward pass over `batch`, counted in `count`.
std::vector<net::Evaluation> counted_pass(net::Evaluator& network,
                                          std::span<const Position* const> batch, PassCount& count);

// Samples each drop from the masked policy at `temperature` (net/sample.h) and keeps the
// decision row the trainer learns from.
class NetworkPlacer : public Placer {
 public:
  NetworkPlacer(net::Evaluator& network, double temperature)
      : network_(network), temperature_(temperature) {}
  std::string name() const override { return "network"; }
  void place(std::span<PlacementRequest> requests) override;
  PassCount passes() const override { return count_; }

 private:
  net::Evaluator& network_;
  double temperature_;
  PassCount count_;
};

// Takes Sente when the value head favours Sente after the kings.
class NetworkChooser : public Chooser {
 public:
  explicit NetworkChooser(net::Evaluator& network) : network_(network) {}
  std::string name() const override { return "network"; }
  void choose(std::span<ChoiceRequest> requests) override;
  PassCount passes() const override { return count_; }

 private:
  net::Evaluator& network_;
  PassCount count_;
};

}  // namespace fuseki
