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
  // Per king square, the site's heat maps: the mean of Sente's v over the other king's 36
  // squares less the mean over all pairs, in percentage points (Sente's view for both kings).
  double all = 0;
  std::vector<double> by_sente(KING_SQUARES, 0.0), by_gote(KING_SQUARES, 0.0);
  for (int p = 0; p < KING_PAIRS; ++p) {
    const double v = r.fit.pairs[size_t(p)].v;
    all += v / KING_PAIRS;
    by_sente[size_t(p / KING_SQUARES)] += v / KING_SQUARES;  // pair = sente * 36 + gote
    by_gote[size_t(p % KING_SQUARES)] += v / KING_SQUARES;
  }
  json sente_pt = json::object(), gote_pt = json::object();
  for (int i = 0; i < KING_SQUARES; ++i) {
    sente_pt[square_name(sente_king_square(i))] = 100 * (by_sente[size_t(i)] - all);
    gote_pt[square_name(gote_king_square(i))] = 100 * (by_gote[size_t(i)] - all);
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

namespace {

// Blue below 50 %, white at 50 %, red above.
std::string colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  int r, g, b;
  if (v < 0.5) {
    double t = v / 0.5;
    r = int(40 + 215 * t), g = int(90 + 165 * t), b = 255;
  } else {
    double t = (v - 0.5) / 0.5;
    r = 255, g = int(255 - 180 * t), b = int(255 - 200 * t);
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", r, g, b);
  return buf;
}

std::string heat_map(const std::string& title, const std::vector<double>& values,
                     const std::vector<bool>& mark, const std::vector<std::string>& tips) {
  const int cell = 14, left = 40, top = 40;
  std::ostringstream o;
  int size = left + KING_SQUARES * cell + 20;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << size + 60 << "\" height=\""
    << size + 10 << "\" font-family=\"sans-serif\" font-size=\"9\">\n<text x=\"" << left
    << "\" y=\"14\" font-size=\"13\">" << title << "</text>\n<text x=\"" << left
    << "\" y=\"30\">Gote king &#8594;</text>\n";
  for (int s = 0; s < KING_SQUARES; ++s) {
    o << "<text x=\"2\" y=\"" << top + s * cell + 10 << "\">" << square_name(sente_king_square(s))
      << "</text>\n";
    for (int g = 0; g < KING_SQUARES; ++g) {
      int p = s * KING_SQUARES + g;
      o << "<rect x=\"" << left + g * cell << "\" y=\"" << top + s * cell << "\" width=\"" << cell
        << "\" height=\"" << cell << "\" fill=\"" << colour(values[size_t(p)]) << "\""
        << (mark[size_t(p)] ? " stroke=\"black\" stroke-width=\"2\""
                            : " stroke=\"#ddd\" stroke-width=\"0.5\"")
        << "><title>" << tips[size_t(p)] << "</title></rect>\n";
    }
  }
  for (int g = 0; g < KING_SQUARES; g += 9)
    o << "<text x=\"" << left + g * cell << "\" y=\"" << top + KING_SQUARES * cell + 10 << "\">"
      << square_name(gote_king_square(g)) << "</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace

std::string table_html(const TableReport& r, const KingPairTable* earlier) {
  std::vector<double> v(KING_PAIRS), width(KING_PAIRS);
  std::vector<bool> band(KING_PAIRS, false), none(KING_PAIRS, false);
  std::vector<std::string> tips(KING_PAIRS);
  for (int p : r.band) band[size_t(p)] = true;
  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    v[size_t(p)] = e.v;
    width[size_t(p)] = 0.5 + std::min(0.5, (e.high - e.low));  // wider interval: redder
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s: v %.3f (raw %.3f [%.3f, %.3f], fit %.3f), %d games",
                  pair_key(p).c_str(), e.v, e.v_raw, e.low, e.high, e.v_fit,
                  r.tallies[size_t(p)].games);
    tips[size_t(p)] = buf;
  }
  std::ostringstream o;
  o << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>fusekilab king-pair "
       "table</title>\n"
    << "<style>body{font-family:sans-serif;margin:20px} td,th{padding:2px "
       "8px;text-align:left}</style></head><body>\n"
    << "<h1>King-pair table</h1>\n<table>";
  for (auto& [k, val] : r.settings) o << "<tr><th>" << k << "</th><td>" << val << "</td></tr>";
  o << "<tr><th>games</th><td>" << r.games
    << "</td></tr><tr><th>uniform allocation, same band precision</th><td>" << r.uniform_equivalent
    << "</td></tr><tr><th>mirror pairs disagreeing</th><td>" << r.mirror_disagreements
    << "</td></tr></table>\n<p>Sente's score per pair (rows: Sente king, columns: Gote king; blue: "
       "Gote favoured, "
       "red: Sente favoured); the "
    << r.band.size() << " pairs closest to 50 % are outlined.</p>\n"
    << heat_map("Sente score v", v, band, tips)
    << heat_map("95 % interval width (white: narrow)", width, band, tips);
  if (earlier) {
    std::vector<double> diff(KING_PAIRS, 0.5);
    std::vector<std::string> dtips(KING_PAIRS);
    double sum = 0;
    int n = 0;
    for (int p = 0; p < KING_PAIRS; ++p) {
      const KingPairEntry* e = earlier->find(pair_sente(p), pair_gote(p));
      if (!e) continue;
      double d = v[size_t(p)] - e->v;
      diff[size_t(p)] = 0.5 + d;
      sum += d * d;
      ++n;
      char buf[128];
      std::snprintf(buf, sizeof(buf), "%s: now %.3f, earlier %.3f, change %+.3f",
                    pair_key(p).c_str(), v[size_t(p)], e->v, d);
      dtips[size_t(p)] = buf;
    }
    o << "<h2>Change against " << earlier->source() << "</h2><p>RMS change "
      << (n ? std::sqrt(sum / n) : 0.0) << " over " << n << " pairs (red: Sente better now).</p>\n"
      << heat_map("v now - v earlier", diff, band, dtips);
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace fuseki
