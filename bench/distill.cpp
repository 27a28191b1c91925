// Offline distillation (#13): how much of a search's placement can a network learn, given the
// data? Trains a network toward the search targets (improved policies) stored in self-play
// shards, for as many steps as asked, and reports, on a held-out shard, how closely its policy
// follows the targets: the excess of its cross-entropy to them (the trainer's loss) over their
// own entropy (KL), how often its argmax is the target's best drop and the probability it gives
// that drop, by ply range. The network
// starts from a checkpoint, or new with a given width and depth (capacity). The shards come from
// `fusekilab pipeline` with a searching placer (gumbel or rollout), e.g. a rollout placer
// against uniform placement with a fixed network (train.steps 0): the look-ahead as a teacher.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "net/evaluator.h"
#include "net/network.h"
#include "selfplay/journal.h"
#include "selfplay/search_target.h"
#include "train/trainer.h"
#include "train/window.h"

using namespace fuseki;

namespace {

double number_arg(const char* what, const char* text, double lo) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (!*text || *end || !(v >= lo) || !std::isfinite(v)) {
    std::fprintf(stderr, "distill: %s: '%s' is not a finite number >= %g\n", what, text, lo);
    std::exit(2);
  }
  return v;
}

// Plies 0-15, 16-31, 32-39: the early drops, the middle, the last four of each side.
constexpr int kRanges = 3;
int range_of(int ply) { return ply < 16 ? 0 : ply < 32 ? 1 : 2; }
const char* kRangeNames[kRanges] = {"plies 0-15", "plies 16-31", "plies 32-39"};

struct Fit {
  double ce = 0, h = 0, top1 = 0, best_p = 0;  // h: the targets' own entropy (CE's floor)
  int n = 0;
};

// The network's policy against the window's search targets.
std::vector<Fit> fit(net::Evaluator& ev, const TrainingWindow& w) {
  std::vector<Fit> out(kRanges + 1);
  const auto& all = w.all();
  const size_t batch = 256;
  for (size_t first = 0; first < all.size(); first += batch) {
    size_t n = std::min(batch, all.size() - first);
    std::vector<Position> positions;
    positions.reserve(n);
    for (size_t i = 0; i < n; ++i) positions.push_back(w.position(all[first + i]));
    std::vector<const Position*> ptrs;
    for (const Position& p : positions) ptrs.push_back(&p);
    std::vector<net::Evaluation> evals = ev.evaluate(ptrs);
    for (size_t i = 0; i < n; ++i) {
      const WindowDecision& d = all[first + i];
      auto target = w.target(d);
      if (target.empty()) continue;
      const std::vector<float>& p = evals[i].policy;
      double ce = 0, h = 0, sum_t = 0, sum_p = 0;
      int best = target[0].action;
      float best_t = -1;
      for (const PolicyTarget& t : target) {
        double pa = std::max(double(p[size_t(t.action)]), 1e-12);
        ce -= t.prob * std::log(pa);
        if (t.prob > 0) h -= t.prob * std::log(double(t.prob));
        sum_t += t.prob;
        sum_p += p[size_t(t.action)];
        if (t.prob > best_t) best_t = t.prob, best = t.action;
      }
      double rest_t = std::max(0.0, 1.0 - sum_t), rest_p = std::max(1e-12, 1.0 - sum_p);
      if (rest_t > 1e-6) ce -= rest_t * std::log(rest_p), h -= rest_t * std::log(rest_t);
      int argmax = int(std::max_element(p.begin(), p.end()) - p.begin());
      for (int r : {range_of(d.ply), kRanges}) {
        Fit& f = out[size_t(r)];
        f.ce += ce;
        f.h += h;
        f.top1 += argmax == best;
        f.best_p += p[size_t(best)];
        f.n += 1;
      }
    }
  }
  for (Fit& f : out)
    if (f.n) f.ce /= f.n, f.h /= f.n, f.top1 /= f.n, f.best_p /= f.n;
  return out;
}

// The value head against the look-ahead's measured values of the drops it tried (PolicyTarget::q),
// over the window's decisions that have them: the drops' values (drop_value of the head at each
// child) against q, their mean squared error and correlation, and, over the decisions with two
// or more such drops, how often the drop the head values highest is the one the look-ahead
// measured highest. As in the trainer (TrainingWindow::add_q_child), Balance's king plies and
// the children the move-41 ruling decides (valued by the ruling, not the head) are left out.
struct ValueFit {
  double mse = 0, corr = 0, pick = 0;
  int drops = 0, decisions = 0;
};

ValueFit value_fit(net::Evaluator& ev, const TrainingWindow& w) {
  std::vector<double> head, measured;
  int picks = 0, decisions = 0;
  const auto& all = w.all();
  for (size_t first = 0; first < all.size(); first += 64) {
    const size_t n = std::min<size_t>(64, all.size() - first);
    std::vector<Position> parents, children;
    std::vector<size_t> parent_of;
    std::vector<float> q;
    for (size_t i = 0; i < n; ++i) {
      const WindowDecision& d = all[first + i];
      Position pos = w.position(d);
      if (pos.info().balance_kings && pos.ply() < 2) continue;
      for (const PolicyTarget& t : w.target(d)) {
        if (!std::isfinite(t.q)) continue;
        Position child = pos;
        child.do_move(net::policy_move(pos, t.action));
        if (ruling41_decided(child)) continue;
        children.push_back(std::move(child));
        parent_of.push_back(parents.size());
        q.push_back(t.q);
      }
      parents.push_back(std::move(pos));
    }
    if (children.empty()) continue;
    std::vector<const Position*> ptrs;
    for (const Position& c : children) ptrs.push_back(&c);
    std::vector<net::Evaluation> evals = ev.evaluate(ptrs);
    for (size_t c = 0; c < children.size();) {  // one decision's drops: [c, end)
      size_t end = c, best_head = c, best_q = c;
      std::vector<double> value;
      for (; end < children.size() && parent_of[end] == parent_of[c]; ++end) {
        value.push_back(drop_value(parents[parent_of[c]], children[end], evals[end].value));
        if (value.back() > value[best_head - c]) best_head = end;
        if (q[end] > q[best_q]) best_q = end;
        head.push_back(value.back());
        measured.push_back(q[end]);
      }
      if (end - c >= 2) {
        picks += best_head == best_q;
        ++decisions;
      }
      c = end;
    }
  }
  ValueFit f;
  f.drops = int(head.size());
  f.decisions = decisions;
  if (head.empty()) return f;
  double mh = 0, mq = 0;
  for (size_t i = 0; i < head.size(); ++i) mh += head[i], mq += measured[i];
  mh /= double(head.size()), mq /= double(head.size());
  double shh = 0, sqq = 0, shq = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    f.mse += (head[i] - measured[i]) * (head[i] - measured[i]);
    shh += (head[i] - mh) * (head[i] - mh);
    sqq += (measured[i] - mq) * (measured[i] - mq);
    shq += (head[i] - mh) * (measured[i] - mq);
  }
  f.mse /= double(head.size());
  f.corr = shh > 0 && sqq > 0 ? shq / std::sqrt(shh * sqq) : 0;
  f.pick = decisions ? double(picks) / decisions : 0;
  return f;
}

void report(const char* label, const std::vector<Fit>& f) {
  std::printf("%s:", label);
  for (int r = 0; r <= kRanges; ++r)
    std::printf("  %s: KL %.3f (CE %.3f), argmax = target's %.3f, p(target's best) %.3f (%d)",
                r < kRanges ? kRangeNames[r] : "all", f[size_t(r)].ce - f[size_t(r)].h,
                f[size_t(r)].ce, f[size_t(r)].top1, f[size_t(r)].best_p, f[size_t(r)].n);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr,
                 "usage: distill OUT INIT STEPS LR THREADS VALID_SHARD [--q-weight W] "
                 "TRAIN_SHARD|DIR...\n"
                 "  INIT: a checkpoint, or new:CHANNELS:BLOCKS[:site] (a fresh network; site: the\n"
                 "  front end's inputs with attack maps and its labels)\n"
                 "  trains toward the shards' search targets (batch 256, Adam, no reanalysis),\n"
                 "  and with W > 0 the value head toward the look-ahead's measured values of the\n"
                 "  drops it tried (train.q_weight); reports the fit to VALID_SHARD's targets ten\n"
                 "  times, writes OUT\n");
    return 2;
  }
  try {
    std::string out = argv[1], init = argv[2];
    uint64_t steps = uint64_t(number_arg("STEPS", argv[3], 1));
    TrainOptions o;
    o.target = TrainTarget::Search;
    o.learning_rate = number_arg("LR", argv[4], 1e-9);
    o.threads = int(number_arg("THREADS", argv[5], 1));
    std::vector<std::string> train;
    int first_shard = 7;
    if (std::string(argv[7]) == "--q-weight") {
      if (argc < 10) {
        std::fprintf(stderr, "distill: --q-weight needs a value and shards after it\n");
        return 2;
      }
      o.q_weight = number_arg("--q-weight", argv[8], 0);
      first_shard = 9;
    }
    for (int i = first_shard; i < argc; ++i) {
      if (std::filesystem::is_directory(argv[i])) {
        for (const std::string& s : list_shards(argv[i]))
          if (std::filesystem::absolute(s) != std::filesystem::absolute(argv[6]))
            train.push_back(s);
      } else {
        train.push_back(argv[i]);
      }
    }
    TrainingWindow window(RewardMode::Eval, 0.5, true), valid(RewardMode::Eval, 0.5, true);
    window.load(train, 1 << 30);
    valid.load({argv[6]}, 1 << 30);
    std::printf("distill: %zu training shards, %zu games, %zu decisions; held out %zu decisions\n",
                train.size(), window.games(), window.decisions(), valid.decisions());
    if (window.decisions() == 0 || valid.decisions() == 0) {
      std::fprintf(stderr, "distill: no decisions to train on or to hold out\n");
      return 2;
    }
    net::NetConfig config;
    std::string start;
    if (init.rfind("new:", 0) == 0) {
      int c = 0, b = 0, used = 0;
      const bool parsed = std::sscanf(init.c_str(), "new:%d:%d%n", &c, &b, &used) == 2;
      const std::string rest = parsed ? init.substr(size_t(used)) : "";
      if (!parsed || (rest != "" && rest != ":site")) {
        std::fprintf(stderr, "distill: INIT '%s' is not new:CHANNELS:BLOCKS[:site]\n",
                     init.c_str());
        return 2;
      }
      config = net::with_format(config, rest == ":site" ? "site" : "native");
      config.channels = c;
      config.blocks = b;
      if (!net::valid(config)) {
        std::fprintf(stderr, "distill: no such network: %s\n", init.c_str());
        return 2;
      }
    } else {
      config = net::Evaluator::from_checkpoint(init).config();
      start = init;
    }
    Trainer trainer(config, o, 1, start);
    net::Evaluator ev(trainer.network());
    auto report_values = [&](const char* label) {
      if (o.q_weight <= 0) return;
      ValueFit v = value_fit(ev, valid);
      std::printf(
          "%s: value head against the look-ahead's q (%d drops): MSE %.4f, correlation %.3f, "
          "its best drop = the look-ahead's %.3f (%d decisions of two drops or more)\n",
          label, v.drops, v.mse, v.corr, v.pick, v.decisions);
      std::fflush(stdout);
    };
    report("step 0", fit(ev, valid));
    report_values("step 0");
    uint64_t begun = trainer.steps();
    double loss = 0;
    int losses = 0;
    for (uint64_t s = 1; s <= steps; ++s) {
      StepMetrics m = trainer.step(window);
      loss += m.policy_loss, ++losses;
      if (s % std::max<uint64_t>(1, steps / 10) == 0 || s == steps) {
        char label[96];
        std::snprintf(label, sizeof(label), "step %llu (train policy loss %.3f)",
                      (unsigned long long)(trainer.steps() - begun), loss / losses);
        loss = 0, losses = 0;
        ev.set_weights(trainer.network());
        report(label, fit(ev, valid));
        report_values(label);
      }
    }
    trainer.save(out, trainer.generation() + 1);
    std::printf("distill: wrote %s\n", out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distill: %s\n", e.what());
    return 1;
  }
}
