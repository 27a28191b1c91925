#include "eval/table_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "eval/stats.h"
#include "rules/notation.h"

namespace fuseki {

using nlohmann::json;

TableReport make_report(const std::vector<PairTally>& tallies, int band,
                        std::map<std::string, std::string> settings) {
  TableReport r;
  r.settings = std::move(settings);
  r.tallies = tallies;
  r.fit = fit_table(tallies);
  r.band = band_of(r.fit.pairs, band);
  for (const PairTally& t : tallies) r.games += t.games;
  int most = 0;
  for (int p : r.band) most = std::max(most, tallies[size_t(p)].games);
  r.uniform_equivalent = long(most) * KING_PAIRS;
  r.mirror_disagreements = mirror_disagreements(tallies);
  return r;
}

int mirror_disagreements(const std::vector<PairTally>& tallies) {
  int n = 0;
  for (int p = 0; p < KING_PAIRS; ++p) {
    int m = mirror_pair(p);
    if (m <= p) continue;  // each unordered pair once; a pair on file 5 is its own mirror
    const PairTally &a = tallies[size_t(p)], &b = tallies[size_t(m)];
    if (a.games < 2 || b.games < 2) continue;
    double va = a.score(), vb = b.score();
    double se = std::sqrt(std::max(va * (1 - va), 0.01) / a.games +
                          std::max(vb * (1 - vb), 0.01) / b.games);
    n += std::abs(va - vb) > 1.96 * se;
  }
  return n;
}

std::vector<PairTally> pool_mirrors(const std::vector<PairTally>& tallies) {
  std::vector<PairTally> out(tallies.size());
  for (int p = 0; p < KING_PAIRS; ++p) {
    int m = mirror_pair(p);
    const PairTally &a = tallies[size_t(p)], &b = tallies[size_t(m)];
    PairTally& o = out[size_t(p)];
    o = a;
    if (m != p) o += b;
  }
  return out;
}

KingSquareValues king_values_pt(const TableFit& fit) {
  double all = 0;
  std::array<double, KING_SQUARES> by_sente{}, by_gote{};
  for (int p = 0; p < KING_PAIRS; ++p) {
    const double v = fit.pairs[size_t(p)].v;
    all += v / KING_PAIRS;
    by_sente[size_t(p / KING_SQUARES)] += v / KING_SQUARES;  // pair = sente * 36 + gote
    by_gote[size_t(p % KING_SQUARES)] += v / KING_SQUARES;
  }
  KingSquareValues pt;
  for (size_t i = 0; i < size_t(KING_SQUARES); ++i) {
    pt.sente[i] = 100 * (by_sente[i] - all);
    pt.gote[i] = 100 * (by_gote[i] - all);
  }
  return pt;
}

std::string table_json(const TableReport& r) {
  json pairs = json::object();
  std::vector<bool> in_band(KING_PAIRS, false);
  for (int p : r.band) in_band[size_t(p)] = true;
  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairTally& t = r.tallies[size_t(p)];
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    pairs[pair_key(p)] = {{"v", e.v},
                          {"v_raw", e.v_raw},
                          {"v_fit", e.v_fit},
                          {"se", e.se},
                          {"n", t.games},
                          {"low", e.low},
                          {"high", e.high},
                          {"sente_wins", t.sente_wins},
                          {"gote_wins", t.gote_wins},
                          {"draws", t.draws},
                          {"ruling41", t.games ? double(t.ruling41) / t.games : 0.0},
                          {"mean_moves", t.games ? t.move_sum / t.games : 0.0},
                          {"shrink_w", e.shrink_w},
                          {"band", bool(in_band[size_t(p)])}};
    if (e.v_eval) {
      pairs[pair_key(p)]["v_eval"] = *e.v_eval;
      if (t.games > 0) pairs[pair_key(p)]["v_games"] = e.v_raw;
    }
  }
  json band = json::array();
  for (int p : r.band) band.push_back(pair_key(p));
  json sente_values = json::object(), gote_values = json::object();
  for (int i = 0; i < KING_SQUARES; ++i) {
    sente_values[square_name(sente_king_square(i))] = r.fit.sente_logit[size_t(i)];
    gote_values[square_name(gote_king_square(i))] = r.fit.gote_logit[size_t(i)];
  }
  double band_mean = 0, worst = 0;
  for (int p : r.band) {
    band_mean += r.fit.pairs[size_t(p)].v;
    worst = std::max(worst, std::abs(r.fit.pairs[size_t(p)].v - 0.5));
  }
  if (!r.band.empty()) band_mean /= double(r.band.size());
  json settings = json::object();
  for (auto& [k, v] : r.settings) settings[k] = v;
  const KingSquareValues pt = king_values_pt(r.fit);
  json sente_pt = json::object(), gote_pt = json::object();
  for (int i = 0; i < KING_SQUARES; ++i) {
    sente_pt[square_name(sente_king_square(i))] = pt.sente[size_t(i)];
    gote_pt[square_name(gote_king_square(i))] = pt.gote[size_t(i)];
  }
  json j = {{"format", "king_pair_table/1"},
            {"mode", "kings-first"},
            {"producer", "fusekilab"},
            {"model", r.model},
            {"settings", settings},
            {"summary",
             {{"games", r.games},
              {"rounds", r.rounds},
              {"uniform_equivalent_games", r.uniform_equivalent},
              {"sigma_interaction", r.fit.sigma_interaction},
              {"band_pairs", r.band.size()},
              {"band_mean_v", band_mean},
              {"band_worst_abs_dev", worst},
              {"mirror_disagreements", r.mirror_disagreements}}},
            {"black_king_value_logit", sente_values},
            {"white_king_value_logit", gote_values},
            {"black_king_value_pt", sente_pt},
            {"white_king_value_pt", gote_pt},
            {"band", band},
            {"pairs", pairs}};
  if (r.score != "games") {  // (a games table stays as it was: merged slices equal one run)
    json& summary = j["summary"];
    summary["score"] = r.score;
    summary["band_precise"] = r.band_precise;
    summary["evaluations"] = r.evaluations;
    if (r.score == "both")  // the evaluation's logit's weight in the fit beside the square effects
      summary["eval_coefficient"] = r.fit.prior_coefficient;
    const EvalCalibration& c = r.calibration;
    summary["eval_calibration"] = {{"scale", c.scale},       {"scale_se", c.scale_se},
                                   {"bias", c.bias},         {"bias_se", c.bias_se},
                                   {"games", c.games},       {"log_loss", c.log_loss},
                                   {"centipawns", "Sente's"}};
    if (r.agreement.pairs > 0) {
      const EvalAgreement& a = r.agreement;
      summary["eval_agreement"] = {
          {"pairs", a.pairs}, {"mean_abs_difference", a.mean_abs}, {"low", a.low},
          {"high", a.high},   {"mean_difference", a.mean_signed},  {"noise_floor", a.noise_floor}};
    }
  }
  return j.dump(1);
}

std::string table_csv(const TableReport& r) {
  std::ostringstream o;
  o << "pair,sente_king,gote_king,n,sente_wins,gote_wins,draws,v_raw,low,high,v_fit,v,se,ruling41_"
       "rate,mean_moves,"
       "band\n";
  std::vector<bool> in_band(KING_PAIRS, false);
  for (int p : r.band) in_band[size_t(p)] = true;
  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairTally& t = r.tallies[size_t(p)];
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    char buf[320];
    std::snprintf(
        buf, sizeof(buf), "\"%s\",%s,%s,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.1f,%d\n",
        pair_key(p).c_str(), square_name(pair_sente(p)).c_str(), square_name(pair_gote(p)).c_str(),
        t.games, t.sente_wins, t.gote_wins, t.draws, e.v_raw, e.low, e.high, e.v_fit, e.v, e.se,
        t.games ? double(t.ruling41) / t.games : 0.0, t.games ? t.move_sum / t.games : 0.0,
        int(in_band[size_t(p)]));
    o << buf;
  }
  return o.str();
}

}  // namespace fuseki
