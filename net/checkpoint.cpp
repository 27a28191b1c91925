#include "net/checkpoint.h"

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <utility>

#include "io/atomic_file.h"
#include "net/site_features.h"

namespace fuseki::net {
namespace {

constexpr const char* kTagKey = "fusekilab";
constexpr const char* kTag = "fusekilab-checkpoint";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CheckpointError("checkpoint '" + path + "': " + what);
}

// The first line of torch's message, without its backtrace.
std::string torch_message(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  std::string msg = c10 ? c10->what_without_backtrace() : e.what();
  size_t nl = msg.find('\n');
  return nl == std::string::npos ? msg : msg.substr(0, nl);
}

// Archive keys may not hold dots: "blocks.0.conv1.weight" is stored as "blocks_0_conv1_weight".
std::string archive_key(std::string name) {
  for (char& ch : name)
    if (ch == '.') ch = '_';
  return name;
}

torch::Tensor words_tensor(const std::vector<uint64_t>& words) {
  torch::Tensor t = torch::empty({int64_t(words.size())}, torch::kInt64);
  if (!words.empty()) std::memcpy(t.data_ptr<int64_t>(), words.data(), words.size() * 8);
  return t;
}

std::vector<uint64_t> tensor_words(const torch::Tensor& t) {
  torch::Tensor c = t.to(torch::kCPU).contiguous();
  std::vector<uint64_t> words(size_t(c.numel()));
  if (!words.empty()) std::memcpy(words.data(), c.data_ptr<int64_t>(), words.size() * 8);
  return words;
}

torch::Tensor bytes_tensor(const std::string& bytes) {
  torch::Tensor t = torch::empty({int64_t(bytes.size())}, torch::kUInt8);
  if (!bytes.empty()) std::memcpy(t.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  return t;
}

struct Hasher {
  uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void* data, size_t size) { h = fnv1a64(data, size, h); }
  void word(uint64_t w) { bytes(&w, sizeof w); }
  void text(const std::string& s) {
    word(s.size());
    bytes(s.data(), s.size());
  }
  void tensor(const std::string& name, const torch::Tensor& t) {
    text(name);
    const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    word(uint64_t(c.scalar_type()));
    word(uint64_t(c.dim()));
    for (int64_t d : c.sizes()) word(uint64_t(d));
    bytes(c.data_ptr(), c.nbytes());
  }
};

// Over everything a checkpoint restores: the architecture, counters, RNG words, weights and
// buffers in registration order, and the optimizer's archive.
uint64_t content_hash(const PolicyValueNetImpl& net, const TrainingState& state,
                      const std::string& optimizer_state, int64_t version) {
  Hasher h;
  h.word(uint64_t(version));
  h.word(uint64_t(net.config().channels));
  h.word(uint64_t(net.config().blocks));
  if (version >= 3) h.text(architecture_record(net.config()));
  h.word(state.train_step);
  h.word(state.generation);
  h.word(state.rng_state.size());
  for (uint64_t w : state.rng_state) h.word(w);
  for (const auto& p : net.named_parameters()) h.tensor(p.key(), p.value());
  for (const auto& b : net.named_buffers()) h.tensor(b.key(), b.value());
  h.text(optimizer_state);
  return h.h;
}

std::string archive_bytes(torch::serialize::OutputArchive& archive) {
  std::ostringstream out;
  archive.save_to(out);
  return std::move(out).str();
}

// The key LibTorch's optimizers file a parameter's state under: the parameter's TensorImpl
// address, as text up to LibTorch 2.1 (Debian 12's) and as the pointer itself in newer releases
// (2.11's, pip's CUDA builds).
using StateKey = std::decay_t<decltype(std::declval<torch::optim::Adam&>().state().begin()->first)>;
template <class Key>
Key key_of(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream out;  // what c10::guts::to_string wrote
    out << p.unsafeGetTensorImpl();
    return std::move(out).str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}
StateKey state_key(const torch::Tensor& p) { return key_of<StateKey>(p); }

// Adam's state in parameter order (format 2). LibTorch's own Adam::save keys the state by the
// parameters' addresses, so its bytes differ from run to run; this archive does not, and the
// same training gives the same checkpoint file, byte for byte.
std::string adam_state_bytes(const torch::optim::Adam& optimizer) {
  torch::serialize::OutputArchive a;
  const auto& groups = optimizer.param_groups();
  a.write("groups", words_tensor({uint64_t(groups.size())}));
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string g = "g" + std::to_string(i) + "_";
    const auto& o = static_cast<const torch::optim::AdamOptions&>(groups[i].options());
    a.write(g + "options", torch::tensor({o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()),
                                          o.eps(), o.weight_decay(), o.amsgrad() ? 1.0 : 0.0},
                                         torch::kDouble));
    a.write(g + "params", words_tensor({uint64_t(groups[i].params().size())}));
    for (size_t j = 0; j < groups[i].params().size(); ++j) {
      const std::string k = g + "p" + std::to_string(j) + "_";
      auto it = optimizer.state().find(state_key(groups[i].params()[j]));
      if (it == optimizer.state().end()) continue;  // never stepped
      const auto& st = static_cast<const torch::optim::AdamParamState&>(*it->second);
      a.write(k + "step", words_tensor({uint64_t(st.step())}));
      a.write(k + "exp_avg", st.exp_avg().to(torch::kCPU));
      a.write(k + "exp_avg_sq", st.exp_avg_sq().to(torch::kCPU));
      if (st.max_exp_avg_sq().defined())
        a.write(k + "max_exp_avg_sq", st.max_exp_avg_sq().to(torch::kCPU));
    }
  }
  return archive_bytes(a);
}

void restore_adam_state(const std::string& bytes, torch::Device device,
                        torch::optim::Adam& optimizer) {
  torch::serialize::InputArchive a;
  a.load_from(bytes.data(), bytes.size(), device);
  torch::Tensor t;
  a.read("groups", t);
  auto& groups = optimizer.param_groups();
  if (uint64_t(t[0].item<int64_t>()) != groups.size())
    throw std::runtime_error(std::to_string(t[0].item<int64_t>()) + " parameter groups saved, " +
                             std::to_string(groups.size()) + " in the optimizer");
  optimizer.state().clear();
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string g = "g" + std::to_string(i) + "_";
    torch::Tensor opts;
    a.read(g + "options", opts);
    opts = opts.to(torch::kCPU);
    auto options = std::make_unique<torch::optim::AdamOptions>(opts[0].item<double>());
    options->betas({opts[1].item<double>(), opts[2].item<double>()})
        .eps(opts[3].item<double>())
        .weight_decay(opts[4].item<double>())
        .amsgrad(opts[5].item<double>() != 0);
    groups[i].set_options(std::move(options));
    a.read(g + "params", t);
    if (uint64_t(t[0].item<int64_t>()) != groups[i].params().size())
      throw std::runtime_error("group " + std::to_string(i) + ": " +
                               std::to_string(t[0].item<int64_t>()) + " parameters saved, " +
                               std::to_string(groups[i].params().size()) + " in the optimizer");
    for (size_t j = 0; j < groups[i].params().size(); ++j) {
      const std::string k = g + "p" + std::to_string(j) + "_";
      const torch::Tensor& p = groups[i].params()[j];
      torch::Tensor step;
      if (!a.try_read(k + "step", step)) continue;  // never stepped
      auto st = std::make_unique<torch::optim::AdamParamState>();
      st->step(step.to(torch::kCPU)[0].item<int64_t>());
      torch::Tensor m, v, vmax;
      a.read(k + "exp_avg", m);
      a.read(k + "exp_avg_sq", v);
      if (m.sizes() != p.sizes() || v.sizes() != p.sizes())
        throw std::runtime_error("parameter " + std::to_string(j) + " has another shape");
      st->exp_avg(m.to(p.device()));
      st->exp_avg_sq(v.to(p.device()));
      if (a.try_read(k + "max_exp_avg_sq", vmax)) st->max_exp_avg_sq(vmax.to(p.device()));
      optimizer.state()[state_key(p)] = std::move(st);
    }
  }
}

int64_t read_int(const std::string& path, torch::serialize::InputArchive& in,
                 const std::string& key, int64_t index = 0) {
  torch::Tensor t;
  if (!in.try_read(key, t) || t.scalar_type() != torch::kInt64 || t.dim() != 1 ||
      t.numel() <= index)
    fail(path, "missing or malformed '" + key + "' entry");
  return t[index].item<int64_t>();
}

void read_weights(const std::string& path, torch::serialize::InputArchive& in,
                  PolicyValueNetImpl& net) {
  torch::serialize::InputArchive weights;
  if (!in.try_read("weights", weights)) fail(path, "no weights");
  torch::NoGradGuard no_grad;
  auto load = [&](const std::string& name, torch::Tensor& dst, bool is_buffer) {
    torch::Tensor src;
    if (!weights.try_read(archive_key(name), src, is_buffer))
      fail(path, "weight '" + name + "' is missing");
    if (src.sizes() != dst.sizes() || src.scalar_type() != dst.scalar_type()) {
      std::ostringstream msg;
      msg << "weight '" << name << "' has shape " << src.sizes() << " " << src.scalar_type()
          << ", the architecture needs " << dst.sizes() << " " << dst.scalar_type();
      fail(path, msg.str());
    }
    dst.copy_(src);
  };
  for (auto& p : net.named_parameters()) load(p.key(), p.value(), false);
  for (auto& b : net.named_buffers()) load(b.key(), b.value(), true);
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size, uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string file_hash(const std::string& path) {
  const std::string bytes = read_file(path);
  char hex[24];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(fnv1a64(bytes.data(), bytes.size())));
  return hex;
}

std::string architecture_record(const NetConfig& c) {
  nlohmann::json a{{"kind", c.kind},
                   {"channels", c.channels},
                   {"blocks", c.blocks},
                   {"input_format", c.input_format},
                   {"input_planes", c.site() ? kSiteInputPlanes : kInputPlanes},
                   {"policy", c.policy},
                   {"policy_size", c.site() ? kSitePolicySize : kPolicySize}};
  // Only a head other than the default is named: the default's record (and so every earlier
  // checkpoint's content hash) stays as it was.
  if (!c.default_value_head()) {
    a["value_channels"] = c.value_channels;
    a["value_hidden"] = c.value_hidden;
  }
  return a.dump();
}

void save_checkpoint(const std::string& path, const PolicyValueNetImpl& net,
                     const torch::optim::Adam* optimizer, const TrainingState& state) {
  std::string bytes;
  try {
    std::string optimizer_state;
    if (optimizer) {
      optimizer_state = adam_state_bytes(*optimizer);
    }
    torch::serialize::OutputArchive out;
    out.write(kTagKey, c10::IValue(std::string(kTag)));
    out.write("format_version", words_tensor({uint64_t(kCheckpointFormatVersion)}));
    out.write("config",
              words_tensor({uint64_t(net.config().channels), uint64_t(net.config().blocks)}));
    out.write("architecture", c10::IValue(architecture_record(net.config())));
    out.write("counters", words_tensor({state.train_step, state.generation}));
    out.write("rng_state", words_tensor(state.rng_state));
    torch::serialize::OutputArchive weights;
    for (const auto& p : net.named_parameters())
      weights.write(archive_key(p.key()), p.value().detach().to(torch::kCPU));
    for (const auto& b : net.named_buffers())
      weights.write(archive_key(b.key()), b.value().to(torch::kCPU), /*is_buffer=*/true);
    out.write("weights", weights);
    out.write("optimizer", bytes_tensor(optimizer_state));
    out.write("content_hash",
              words_tensor({content_hash(net, state, optimizer_state, kCheckpointFormatVersion)}));
    bytes = archive_bytes(out);
  } catch (const std::exception& e) {
    fail(path, "cannot serialise: " + torch_message(e));
  }
  try {
    write_file_atomically(path, bytes);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(std::string("checkpoint ") + e.what());
  }
}

Checkpoint load_checkpoint(const std::string& path, torch::Device device) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(std::string("checkpoint ") + e.what());
  }
  if (bytes.empty()) fail(path, "the file is empty");
  // Torch archives are zip files; anything else is rejected before torch's reader sees it.
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "PK\x03\x04", 4) != 0)
    fail(path, "not a fusekilab checkpoint (not a torch zip archive)");

  Checkpoint c;
  c.path = path;
  try {
    torch::serialize::InputArchive in;
    try {
      in.load_from(bytes.data(), bytes.size(), torch::Device(torch::kCPU));
    } catch (const std::exception& e) {
      fail(path, "truncated or damaged torch archive (" + torch_message(e) + ")");
    }
    c10::IValue tag;
    if (!in.try_read(kTagKey, tag) || !tag.isString() || tag.toStringRef() != kTag)
      fail(path, "a torch archive, but not a fusekilab checkpoint (no fusekilab tag)");
    const int64_t version = read_int(path, in, "format_version");
    if (version != kCheckpointFormatVersion && version != 2)
      fail(path, "format version " + std::to_string(version) + ", this build reads versions 2 to " +
                     std::to_string(kCheckpointFormatVersion));
    const int64_t channels = read_int(path, in, "config", 0),
                  blocks = read_int(path, in, "config", 1);
    if (channels < 1 || channels > kMaxChannels || blocks < 0 || blocks > kMaxBlocks)
      fail(path, "implausible architecture (" + std::to_string(channels) + " channels, " +
                     std::to_string(blocks) + " blocks)");
    c.config = NetConfig{int(channels), int(blocks)};
    if (version >= 3) {
      c10::IValue record;
      if (!in.try_read("architecture", record) || !record.isString())
        fail(path, "missing or malformed 'architecture' entry");
      nlohmann::json a = nlohmann::json::parse(record.toStringRef(), nullptr, false);
      if (a.is_discarded() || !a.is_object())
        fail(path, "the architecture record is not JSON: " + record.toStringRef());
      auto field = [&](const char* key) { return a.value(key, std::string("(none)")); };
      // What this build can run: one kind, two formats (the native one and the site's), each
      // one input encoding with its label space.
      if (field("kind") != kNetKind)
        fail(path, "a network of kind '" + field("kind") + "'; this build runs kind '" + kNetKind +
                       "' only");
      c.config.input_format = field("input_format");
      c.config.policy = field("policy");
      c.config.value_channels = a.value("value_channels", 1);
      c.config.value_hidden = a.value("value_hidden", 0);
      if (c.config.value_channels < 1 || c.config.value_channels > kMaxValueChannels ||
          c.config.value_hidden < 0 || c.config.value_hidden > kMaxChannels)
        fail(path, "implausible value head (" + std::to_string(c.config.value_channels) +
                       " channels, " + std::to_string(c.config.value_hidden) + " hidden units)");
      if (!valid(c.config))
        fail(path, "a network of input_format '" + field("input_format") + "' and policy '" +
                       field("policy") + "'; this build runs '" + kInputFormat + "' with '" +
                       kPolicyLabels + "' or '" + kSiteInputFormat + "' with '" +
                       kSitePolicyLabels + "'");
      if (a.value("channels", -1) != channels || a.value("blocks", -1) != blocks)
        fail(path,
             "the architecture record (" + record.toStringRef() + ") disagrees with the sizes");
    }
    c.state.train_step = uint64_t(read_int(path, in, "counters", 0));
    c.state.generation = uint64_t(read_int(path, in, "counters", 1));
    torch::Tensor rng, opt, hash;
    if (!in.try_read("rng_state", rng) || rng.scalar_type() != torch::kInt64)
      fail(path, "missing or malformed 'rng_state' entry");
    c.state.rng_state = tensor_words(rng);
    if (!in.try_read("optimizer", opt) || opt.scalar_type() != torch::kUInt8 || opt.dim() != 1)
      fail(path, "missing or malformed 'optimizer' entry");
    opt = opt.contiguous();
    c.optimizer_state.assign(reinterpret_cast<const char*>(opt.data_ptr<uint8_t>()),
                             size_t(opt.numel()));
    c.content_hash = uint64_t(read_int(path, in, "content_hash"));

    c.net = PolicyValueNet(c.config);
    read_weights(path, in, *c.net);
    if (content_hash(*c.net, c.state, c.optimizer_state, version) != c.content_hash)
      fail(path, "content hash mismatch: the file is damaged");
    c.net->to(device);
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    fail(path, "unreadable: " + torch_message(e));
  }
  return c;
}

void Checkpoint::restore_optimizer(torch::optim::Adam& optimizer) const {
  if (optimizer_state.empty()) fail(path, "saved without optimizer state");
  try {
    restore_adam_state(optimizer_state, net->device(), optimizer);
  } catch (const std::exception& e) {
    fail(path, "optimizer state does not fit this optimizer: " + torch_message(e));
  }
}

}  // namespace fuseki::net
