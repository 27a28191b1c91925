#include "selfplay/shard.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "io/atomic_file.h"

namespace fuseki {
namespace {

constexpr const char* kFormatName = "fusekilab-selfplay-shard";

// Closes an HDF5 handle when it goes out of scope.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~Handle() {
    if (id >= 0) close(id);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

// HDF5 prints its own error stack by default; we report one clear line instead.
struct QuietErrors {
  H5E_auto2_t func;
  void* data;
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func, data); }
};

template <typename T>
hid_t native_type();
template <>
hid_t native_type<int8_t>() {
  return H5T_NATIVE_INT8;
}
template <>
hid_t native_type<uint8_t>() {
  return H5T_NATIVE_UINT8;
}
template <>
hid_t native_type<int16_t>() {
  return H5T_NATIVE_INT16;
}
template <>
hid_t native_type<uint16_t>() {
  return H5T_NATIVE_UINT16;
}
template <>
hid_t native_type<int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
hid_t native_type<uint64_t>() {
  return H5T_NATIVE_UINT64;
}
template <>
hid_t native_type<float>() {
  return H5T_NATIVE_FLOAT;
}

void check(herr_t rc, const std::string& what) {
  if (rc < 0) throw ShardError(what);
}

// A chunked, deflate-compressed 1-D dataset filled from rows through `get`.
template <typename T, typename Row>
void write_column(hid_t group, const char* name, const std::vector<Row>& rows,
                  const std::function<T(const Row&)>& get, const std::string& path) {
  std::vector<T> data(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) data[i] = get(rows[i]);
  hsize_t dims[1] = {rows.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!rows.empty()) {
    hsize_t chunk[1] = {std::min<hsize_t>(rows.size(), 16384)};
    H5Pset_chunk(plist.id, 1, chunk);
    H5Pset_shuffle(plist.id);
    H5Pset_deflate(plist.id, 4);
  }
  Handle ds(H5Dcreate2(group, name, native_type<T>(), space.id, H5P_DEFAULT, plist.id, H5P_DEFAULT),
            H5Dclose);
  if (ds.id < 0) throw ShardError(path + ": cannot create dataset " + name);
  if (!rows.empty())
    check(H5Dwrite(ds.id, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
          path + ": cannot write " + name);
}

void write_strings(hid_t group, const char* name, const std::vector<GameRow>& rows,
                   const std::string& path) {
  std::vector<const char*> data(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) data[i] = rows[i].record.c_str();
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id, H5T_VARIABLE);
  H5Tset_cset(type.id, H5T_CSET_UTF8);
  hsize_t dims[1] = {rows.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(group, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose);
  if (ds.id < 0) throw ShardError(path + ": cannot create dataset " + name);
  if (!rows.empty())
    check(H5Dwrite(ds.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
          path + ": cannot write " + name);
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id, value.size() + 1);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(attr.id, type.id, value.c_str());
}

void write_int_attribute(hid_t obj, const char* name, int64_t value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name, H5T_NATIVE_INT64, space.id, H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  H5Awrite(attr.id, H5T_NATIVE_INT64, &value);
}

template <typename T>
std::vector<T> read_column(hid_t group, const char* name, const std::string& path) {
  Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (ds.id < 0) throw ShardError(path + ": not a fusekilab shard (no dataset " + name + ")");
  Handle space(H5Dget_space(ds.id), H5Sclose);
  hssize_t n = H5Sget_simple_extent_npoints(space.id);
  if (n < 0) throw ShardError(path + ": unreadable dataset " + name);
  std::vector<T> data(static_cast<size_t>(n));
  if (n > 0 && H5Dread(ds.id, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
    throw ShardError(path + ": cannot read dataset " + name + " (truncated or corrupt file?)");
  return data;
}

std::vector<std::string> read_strings(hid_t group, const char* name, const std::string& path) {
  Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
  if (ds.id < 0) throw ShardError(path + ": not a fusekilab shard (no dataset " + name + ")");
  Handle space(H5Dget_space(ds.id), H5Sclose);
  hssize_t n = H5Sget_simple_extent_npoints(space.id);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id, H5T_VARIABLE);
  H5Tset_cset(type.id, H5T_CSET_UTF8);
  std::vector<char*> raw(size_t(std::max<hssize_t>(n, 0)));
  if (n > 0 && H5Dread(ds.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
    throw ShardError(path + ": cannot read dataset " + name + " (truncated or corrupt file?)");
  std::vector<std::string> out;
  for (char* s : raw) out.emplace_back(s ? s : "");
  if (n > 0) H5Dvlen_reclaim(type.id, space.id, H5P_DEFAULT, raw.data());
  return out;
}

std::map<std::string, std::string> read_string_attributes(hid_t obj) {
  std::map<std::string, std::string> out;
  H5O_info_t info;
  if (H5Oget_info2(obj, &info, H5O_INFO_NUM_ATTRS) < 0) return out;
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    Handle attr(H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose);
    if (attr.id < 0) continue;
    char name[256];
    H5Aget_name(attr.id, sizeof(name), name);
    Handle type(H5Aget_type(attr.id), H5Tclose);
    if (H5Tget_class(type.id) != H5T_STRING || H5Tis_variable_str(type.id) > 0) continue;
    std::string value(H5Tget_size(type.id), '\0');
    H5Aread(attr.id, type.id, value.data());
    value.resize(std::strlen(value.c_str()));
    out[name] = value;
  }
  return out;
}

}  // namespace

void write_shard(const std::string& path, const Shard& shard) {
  QuietErrors quiet;
  std::string tmp = temporary_name(path);  // two writers of one path never share it
  {
    Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (file.id < 0) throw ShardError(tmp + ": cannot create file");
    write_attribute(file.id, "format", kFormatName);
    write_int_attribute(file.id, "version", SHARD_FORMAT_VERSION);
    for (auto& [k, v] : shard.attributes)
      if (k != "format" && k != "version") write_attribute(file.id, k, v);

    Handle games(H5Gcreate2(file.id, "games", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    auto& g = shard.games;
    write_column<uint64_t, GameRow>(
        games.id, "seed", g, [](const GameRow& r) { return r.seed; }, tmp);
    write_column<int8_t, GameRow>(
        games.id, "rules", g, [](const GameRow& r) { return r.rules; }, tmp);
    write_column<int8_t, GameRow>(
        games.id, "winner", g, [](const GameRow& r) { return code(r.winner); }, tmp);
    write_column<int8_t, GameRow>(
        games.id, "reason", g, [](const GameRow& r) { return code(r.reason); }, tmp);
    write_column<int16_t, GameRow>(
        games.id, "play_moves", g, [](const GameRow& r) { return r.play_moves; }, tmp);
    write_column<int8_t, GameRow>(
        games.id, "placer", g, [](const GameRow& r) { return r.placer; }, tmp);
    write_column<int8_t, GameRow>(
        games.id, "chooser_takes", g, [](const GameRow& r) { return r.chooser_takes; }, tmp);
    write_column<int16_t, GameRow>(
        games.id, "sente_king", g, [](const GameRow& r) { return r.sente_king; }, tmp);
    write_column<int16_t, GameRow>(
        games.id, "gote_king", g, [](const GameRow& r) { return r.gote_king; }, tmp);
    write_column<uint8_t, GameRow>(
        games.id, "shapes", g, [](const GameRow& r) { return r.shapes; }, tmp);
    write_column<float, GameRow>(
        games.id, "sente_eval", g, [](const GameRow& r) { return r.sente_eval; }, tmp);
    write_strings(games.id, "record", g, tmp);

    Handle dec(H5Gcreate2(file.id, "decisions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    auto& d = shard.decisions;
    write_column<int32_t, DecisionRow>(
        dec.id, "game", d, [](const DecisionRow& r) { return r.game; }, tmp);
    write_column<int16_t, DecisionRow>(
        dec.id, "ply", d, [](const DecisionRow& r) { return r.ply; }, tmp);
    write_column<int8_t, DecisionRow>(
        dec.id, "mover", d, [](const DecisionRow& r) { return r.mover; }, tmp);
    write_column<int16_t, DecisionRow>(
        dec.id, "action", d, [](const DecisionRow& r) { return r.action; }, tmp);
    write_column<uint16_t, DecisionRow>(
        dec.id, "move", d, [](const DecisionRow& r) { return r.move; }, tmp);
    write_column<int16_t, DecisionRow>(
        dec.id, "legal", d, [](const DecisionRow& r) { return r.legal; }, tmp);
    write_column<float, DecisionRow>(
        dec.id, "prob", d, [](const DecisionRow& r) { return r.prob; }, tmp);
    write_column<float, DecisionRow>(
        dec.id, "value", d, [](const DecisionRow& r) { return r.value; }, tmp);

    // The search targets, flat: one row per (decision, evaluated drop), in decision order.
    struct TargetRow {
      int32_t decision;
      PolicyTarget entry;
    };
    std::vector<TargetRow> t;
    for (size_t i = 0; i < d.size(); ++i)
      for (const PolicyTarget& e : d[i].target) t.push_back({int32_t(i), e});
    Handle targets(H5Gcreate2(file.id, "targets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    write_column<int32_t, TargetRow>(
        targets.id, "decision", t, [](const TargetRow& r) { return r.decision; }, tmp);
    write_column<int16_t, TargetRow>(
        targets.id, "action", t, [](const TargetRow& r) { return r.entry.action; }, tmp);
    write_column<float, TargetRow>(
        targets.id, "prob", t, [](const TargetRow& r) { return r.entry.prob; }, tmp);
    write_column<float, TargetRow>(
        targets.id, "q", t, [](const TargetRow& r) { return r.entry.q; }, tmp);
    if (H5Fflush(file.id, H5F_SCOPE_GLOBAL) < 0) throw ShardError(tmp + ": cannot flush");
  }
  try {
    commit_file(tmp, path);  // synced, renamed, the directory synced: like every other output
  } catch (const std::runtime_error& e) {
    throw ShardError(std::string("shard ") + e.what());
  }
}

Shard read_shard(const std::string& path) {
  QuietErrors quiet;
  if (FILE* f = std::fopen(path.c_str(), "rb"))
    std::fclose(f);
  else
    throw ShardError(path + ": cannot open (missing or unreadable)");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw ShardError(path + ": not an HDF5 file (truncated or foreign)");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.id < 0) throw ShardError(path + ": cannot open HDF5 file");
  Shard s;
  s.attributes = read_string_attributes(file.id);
  if (s.attributes["format"] != kFormatName)
    throw ShardError(path + ": not a fusekilab self-play shard (format attribute '" +
                     s.attributes["format"] + "')");
  int64_t version = -1;
  {
    Handle attr(H5Aopen(file.id, "version", H5P_DEFAULT), H5Aclose);
    if (attr.id < 0 || H5Aread(attr.id, H5T_NATIVE_INT64, &version) < 0)
      throw ShardError(path + ": shard has no format version");
  }
  if (version < 1 || version > SHARD_FORMAT_VERSION)
    throw ShardError(path + ": shard format version " + std::to_string(version) +
                     ", this program reads 1 to " + std::to_string(SHARD_FORMAT_VERSION));
  s.attributes["version"] = std::to_string(version);

  Handle games(H5Gopen2(file.id, "games", H5P_DEFAULT), H5Gclose);
  if (games.id < 0) throw ShardError(path + ": not a fusekilab shard (no group games)");
  auto seed = read_column<uint64_t>(games.id, "seed", path);
  auto rules = read_column<int8_t>(games.id, "rules", path);
  auto winner = read_column<int8_t>(games.id, "winner", path);
  auto reason = read_column<int8_t>(games.id, "reason", path);
  auto play_moves = read_column<int16_t>(games.id, "play_moves", path);
  auto placer = read_column<int8_t>(games.id, "placer", path);
  auto chooser = read_column<int8_t>(games.id, "chooser_takes", path);
  auto sk = read_column<int16_t>(games.id, "sente_king", path);
  auto gk = read_column<int16_t>(games.id, "gote_king", path);
  auto shapes = read_column<uint8_t>(games.id, "shapes", path);
  auto sente_eval = read_column<float>(games.id, "sente_eval", path);
  auto record = read_strings(games.id, "record", path);
  size_t n = seed.size();
  for (auto size :
       {rules.size(), winner.size(), reason.size(), play_moves.size(), placer.size(),
        chooser.size(), sk.size(), gk.size(), shapes.size(), sente_eval.size(), record.size()})
    if (size != n) throw ShardError(path + ": game columns differ in length");
  s.games.resize(n);
  for (size_t i = 0; i < n; ++i) {
    std::optional<Winner> w = winner_from_code(winner[i]);
    std::optional<Reason> r = reason_from_code(reason[i]);
    if (!w || !r)
      throw ShardError(path + ": game " + std::to_string(i) + " has an unknown " +
                       (!w ? "winner" : "reason") + " code " +
                       std::to_string(!w ? winner[i] : reason[i]));
    s.games[i] = {seed[i],    rules[i], *w,    *r,        play_moves[i], placer[i],
                  chooser[i], sk[i],    gk[i], shapes[i], sente_eval[i], record[i]};
  }

  Handle dec(H5Gopen2(file.id, "decisions", H5P_DEFAULT), H5Gclose);
  if (dec.id < 0) throw ShardError(path + ": not a fusekilab shard (no group decisions)");
  auto game = read_column<int32_t>(dec.id, "game", path);
  auto ply = read_column<int16_t>(dec.id, "ply", path);
  auto mover = read_column<int8_t>(dec.id, "mover", path);
  auto action = read_column<int16_t>(dec.id, "action", path);
  auto move = read_column<uint16_t>(dec.id, "move", path);
  auto legal = read_column<int16_t>(dec.id, "legal", path);
  auto prob = read_column<float>(dec.id, "prob", path);
  auto value = read_column<float>(dec.id, "value", path);
  size_t m = game.size();
  for (auto size : {ply.size(), mover.size(), action.size(), move.size(), legal.size(), prob.size(),
                    value.size()})
    if (size != m) throw ShardError(path + ": decision columns differ in length");
  s.decisions.resize(m);
  for (size_t i = 0; i < m; ++i) {
    if (game[i] < 0 || size_t(game[i]) >= n)
      throw ShardError(path + ": decision " + std::to_string(i) + " names no game");
    s.decisions[i] = {game[i],  ply[i],  mover[i], action[i], move[i],
                      legal[i], prob[i], value[i], {}};
  }
  if (version < 2) return s;  // before search targets
  Handle targets(H5Gopen2(file.id, "targets", H5P_DEFAULT), H5Gclose);
  if (targets.id < 0) throw ShardError(path + ": not a fusekilab shard (no group targets)");
  auto t_decision = read_column<int32_t>(targets.id, "decision", path);
  auto t_action = read_column<int16_t>(targets.id, "action", path);
  auto t_prob = read_column<float>(targets.id, "prob", path);
  std::vector<float> t_q = version >= 3 ? read_column<float>(targets.id, "q", path)
                                        : std::vector<float>(t_decision.size(), PolicyTarget{}.q);
  if (t_action.size() != t_decision.size() || t_prob.size() != t_decision.size() ||
      t_q.size() != t_decision.size())
    throw ShardError(path + ": target columns differ in length");
  for (size_t i = 0; i < t_decision.size(); ++i) {
    if (t_decision[i] < 0 || size_t(t_decision[i]) >= m)
      throw ShardError(path + ": target " + std::to_string(i) + " names no decision");
    s.decisions[size_t(t_decision[i])].target.push_back({t_action[i], t_prob[i], t_q[i]});
  }
  return s;
}

}  // namespace fuseki
