#include "eval/table_builder.h"

#include <algorithm>
#include <cmath>

#include "eval/stats.h"
#include "rules/rng.h"

namespace fuseki {

namespace {
constexpr double kZ = 1.959964;
constexpr double kBoundaryMargin = 0.005;  // ties closer than this do not keep a pair in play
}  // namespace

TableBuilder::TableBuilder(AllocationOptions options, uint64_t seed)
    : options_(std::move(options)),
      seed_(seed),
      tallies_(KING_PAIRS),
      scheduled_(KING_PAIRS, 0),
      done_(KING_PAIRS) {
  if (options_.pairs.empty())
    for (int p = 0; p < KING_PAIRS; ++p) options_.pairs.push_back(p);
}

uint64_t TableBuilder::game_seed(uint64_t run_seed, int pair, int index) {
  return Rng::derive(run_seed, 100000 + uint64_t(pair), uint64_t(index));
}

void TableBuilder::restore_schedule(const Schedule& s) {
  restored_.push_back(s);
  round_ = std::max(round_, s.round + 1);
  for (const PairGame& g : s.games)
    scheduled_[size_t(g.pair)] = std::max(scheduled_[size_t(g.pair)], g.index + 1);
}

void TableBuilder::restore_result(const PairResult& r) {
  std::vector<bool>& done = done_[size_t(r.pair)];
  if (size_t(r.index) >= done.size()) done.resize(size_t(r.index) + 1, false);
  if (done[size_t(r.index)]) return;  // a result the journal holds twice counts once
  done[size_t(r.index)] = true;
  ++games_played_;
  if (!scored(r.winner)) return;  // void: no result
  PairTally& t = tallies_[size_t(r.pair)];
  ++t.games;
  t.sente_wins += r.winner == Winner::Sente;
  t.gote_wins += r.winner == Winner::Gote;
  t.draws += r.winner == Winner::Draw;
  t.ruling41 += r.reason == Reason::Ruling41;
  t.move_sum += r.moves;
}

TableFit TableBuilder::fit() const {
  if (!prior_) return fit_table(tallies_);
  const std::vector<double> prior = prior_();
  return fit_table(tallies_, &prior);
}

std::vector<int> TableBuilder::band() const { return band_of(fit().pairs, options_.band); }

std::vector<PairGame> TableBuilder::first_pass() const {
  std::vector<PairGame> games;
  for (int p : options_.pairs)
    for (int i = scheduled_[size_t(p)]; i < options_.first_pass; ++i)
      games.push_back({p, i, game_seed(seed_, p, i)});
  return games;
}

bool TableBuilder::imprecise(int pair) const {
  const PairTally& t = tallies_[size_t(pair)];
  double low, high;
  wilson_interval(t.points(), t.games, low, high);
  bool enough = options_.min_band_games > 0 && t.games >= options_.min_band_games;
  return !enough && (high - low) / 2 > options_.target_halfwidth;
}

bool TableBuilder::band_precise() const {
  for (int p : band())
    if (imprecise(p)) return false;
  return true;
}

long TableBuilder::uniform_equivalent() const {
  int most = 0;
  for (int p : band()) most = std::max(most, tallies_[size_t(p)].games);
  return long(most) * long(options_.pairs.size());
}

std::vector<PairGame> TableBuilder::games_for(const std::vector<int>& pairs, int each) const {
  std::vector<PairGame> games;
  for (int p : pairs) {
    for (int k = 0; k < each && int(games.size()) < options_.round_games; ++k) {
      int i = scheduled_[size_t(p)] + k;
      games.push_back({p, i, game_seed(seed_, p, i)});
    }
    if (int(games.size()) >= options_.round_games) break;
  }
  return games;
}

std::vector<PairGame> TableBuilder::next_round() {
  TableFit f = fit();
  std::vector<int> band = band_of(f.pairs, options_.band);
  std::vector<bool> in_band(KING_PAIRS, false);
  double inner = 0;  // the band's largest distance from 50 %
  for (int p : band) {
    in_band[size_t(p)] = true;
    inner = std::max(inner, std::abs(f.pairs[size_t(p)].v - 0.5));
  }
  double outer = 1;  // the smallest distance outside it
  for (int p : options_.pairs)
    if (!in_band[size_t(p)]) outer = std::min(outer, std::abs(f.pairs[size_t(p)].v - 0.5));

  struct Need {
    int pair;
    double priority;
  };
  std::vector<Need> needy;
  for (int p : options_.pairs) {
    const PairEstimate& e = f.pairs[size_t(p)];
    double d = std::abs(e.v - 0.5), reach = kZ * e.se;
    bool uncertain = in_band[size_t(p)] ? d + reach > outer + kBoundaryMargin
                                        : d - reach < inner - kBoundaryMargin;
    const bool short_of = in_band[size_t(p)] && imprecise(p);
    if (uncertain || short_of) needy.push_back({p, e.se + (short_of ? 1.0 : 0.0)});
  }
  if (needy.empty()) return {};
  std::stable_sort(needy.begin(), needy.end(),
                   [](const Need& a, const Need& b) { return a.priority > b.priority; });
  std::vector<int> pairs;
  for (const Need& n : needy) pairs.push_back(n.pair);
  return games_for(pairs, std::max(1, options_.round_games / int(needy.size())));
}

Schedule TableBuilder::next_schedule() {
  while (true) {
    std::vector<PairGame> games = round_ == 0         ? first_pass()
                                  : options_.adaptive ? next_round()
                                                      : std::vector<PairGame>{};
    if (round_ == 0 && games.empty()) {  // the first pass was finished before
      ++round_;
      continue;
    }
    long left = options_.max_games - games_played_;
    if (left <= 0) return {round_, {}};
    if (long(games.size()) > left) games.resize(size_t(left));
    for (const PairGame& g : games)
      scheduled_[size_t(g.pair)] = std::max(scheduled_[size_t(g.pair)], g.index + 1);
    return {round_, games};
  }
}

void TableBuilder::run(GameSource& source, const std::function<void(const Schedule&)>& on_schedule,
                       const std::function<void(const PairResult&)>& on_result,
                       const std::function<void(const std::string&)>& progress) {
  auto record = [&](const PairResult& r) {
    restore_result(r);
    if (on_result) on_result(r);
  };
  // Finish what an interrupted run had scheduled, exactly as it was scheduled.
  for (const Schedule& s : restored_) {
    std::vector<PairGame> missing;
    for (const PairGame& g : s.games) {
      const std::vector<bool>& done = done_[size_t(g.pair)];
      if (size_t(g.index) >= done.size() || !done[size_t(g.index)]) missing.push_back(g);
    }
    if (!missing.empty()) source.play(missing, record);
  }
  restored_.clear();
  while (true) {
    Schedule s = next_schedule();
    if (s.games.empty()) break;
    if (on_schedule) on_schedule(s);
    const std::vector<PairGame>& games = s.games;
    source.play(games, record);
    ++round_;
    if (progress)
      progress("round " + std::to_string(round_) + ": " + std::to_string(games.size()) +
               " games, " + std::to_string(games_played_) + " in all, band " +
               (band_precise() ? "precise" : "not yet precise"));
  }
}

}  // namespace fuseki
