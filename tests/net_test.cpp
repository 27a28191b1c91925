// The net layer: the mover's-view encoding, the network, batched inference, checkpoints and the
// TorchScript export.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "net/checkpoint.h"
#include "net/encode.h"
#include "net/evaluator.h"
#include "net/network.h"
#include "net/sample.h"
#include "net/site_features.h"
#include "rules/movegen.h"
#include "rules/position.h"
#include "rules/rng.h"
#include "tests/test_util.h"

namespace fuseki::net {
namespace {

constexpr RuleSet kPlacementRules[] = {RuleSet::Fuseki, RuleSet::BalanceV1, RuleSet::Balance};

MoveList legal(const Position& pos) {
  MoveList list;
  generate_legal(pos, list);
  return list;
}

// Random legal drops from the start; stops early if placement ends.
Position random_placement(RuleSet rules, int plies, Rng& rng) {
  Position pos = Position::start(rules);
  for (int i = 0; i < plies && pos.in_placement(); ++i) {
    MoveList list = legal(pos);
    pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
  }
  return pos;
}

// A placement position at every ply of a few random games per rule set.
std::vector<Position> sample_positions(int games_per_rules, uint64_t seed) {
  Rng rng(seed);
  std::vector<Position> out;
  for (RuleSet r : kPlacementRules)
    for (int g = 0; g < games_per_rules; ++g) {
      Position pos = Position::start(r);
      while (pos.in_placement()) {
        out.push_back(pos);
        MoveList list = legal(pos);
        pos.do_move(list.moves[rng.below(uint32_t(list.size))]);
      }
    }
  return out;
}

float plane_at(const std::vector<float>& planes, int plane, int view_rank, int view_file) {
  return planes[size_t(plane * kPlaneSize + view_rank * kBoardFiles + view_file)];
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("fusekilab_net_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// --- Encoding --------------------------------------------------------------------------------

TEST(Encode, PolicyIndexRoundTripsForEveryLegalDrop) {
  for (const Position& pos : sample_positions(3, 11)) {
    for (Move m : legal(pos)) {
      int index = policy_index(pos, m);
      ASSERT_GE(index, 0) << pos.sfen();
      ASSERT_LT(index, kPolicySize);
      ASSERT_EQ(policy_move(pos, index), m) << pos.sfen() << " index " << index;
    }
    for (int i = 0; i < kPolicySize; ++i) ASSERT_EQ(policy_index(pos, policy_move(pos, i)), i);
  }
}

TEST(Encode, PolicyIndexIsKindTimes36PlusCampSquare) {
  // Sente's P*9i: kind 0, view rank 8, file index 8 -> (8 - 5) * 9 + 8 = 35.
  EXPECT_EQ(policy_index(BLACK, make_drop(PAWN, make_square(8, 8))), 35);
  // Sente's K*5i: kind 7 -> 7 * 36 + 3 * 9 + 4.
  EXPECT_EQ(policy_index(BLACK, make_drop(KING, make_square(4, 8))), 7 * 36 + 31);
  // Gote's K*5a is the same camp square seen from Gote's side.
  EXPECT_EQ(policy_index(WHITE, make_drop(KING, make_square(4, 0))), 7 * 36 + 31);
  // Gold is kind 4 although its PieceType is 7.
  EXPECT_EQ(policy_index(BLACK, make_drop(GOLD, make_square(0, 5))), 4 * 36);
  // Outside the mover's camp, board moves and out-of-range indices have no index.
  EXPECT_EQ(policy_index(BLACK, make_drop(PAWN, make_square(0, 4))), -1);
  EXPECT_EQ(policy_index(WHITE, make_drop(PAWN, make_square(0, 5))), -1);
  EXPECT_EQ(policy_index(BLACK, make_move(make_square(0, 6), make_square(0, 5), false)), -1);
  EXPECT_EQ(policy_move(BLACK, kPolicySize), MOVE_NONE);
  EXPECT_EQ(policy_move(BLACK, -1), MOVE_NONE);
}

TEST(Encode, MaskHoldsExactlyTheLegalDrops) {
  for (const Position& pos : sample_positions(3, 12)) {
    uint8_t mask[kPolicySize];
    MoveList list = legal(pos);
    ASSERT_EQ(legal_mask(pos, mask), list.size) << pos.sfen();
    for (int i = 0; i < kPolicySize; ++i)
      ASSERT_EQ(mask[i] != 0, list.contains(policy_move(pos, i))) << pos.sfen() << " index " << i;
  }
}

TEST(Encode, MaskIsEmptyAfterPlacement) {
  Rng rng(5);
  Position pos = random_placement(RuleSet::Fuseki, 40, rng);
  ASSERT_FALSE(pos.in_placement());
  uint8_t mask[kPolicySize];
  EXPECT_EQ(legal_mask(pos, mask), 0);
  for (uint8_t m : mask) EXPECT_EQ(m, 0);
}

TEST(Encode, BalanceKingDropsOnPliesOneAndTwoAreKingOnly) {
  for (RuleSet r : {RuleSet::BalanceV1, RuleSet::Balance}) {
    Position pos = Position::start(r);
    for (int ply = 0; ply < 2; ++ply) {
      uint8_t mask[kPolicySize];
      ASSERT_EQ(legal_mask(pos, mask), kCampSquares);
      for (int i = 0; i < kPolicySize; ++i) EXPECT_EQ(mask[i] != 0, i >= 7 * kCampSquares);
      pos.do_move(policy_move(pos, 7 * kCampSquares + 4));
    }
  }
}

TEST(Encode, PlanesFollowTheMoversView) {
  Rng rng(21);
  for (RuleSet r : kPlacementRules)
    for (int plies : {0, 1, 2, 7, 20, 39}) {
      Position pos = random_placement(r, plies, rng);
      std::vector<float> planes(kInputSize);
      encode(pos, planes.data());
      const Color us = pos.side_to_move();
      for (int vr = 0; vr < kBoardRanks; ++vr)
        for (int vf = 0; vf < kBoardFiles; ++vf) {
          Square sq = view_square(us, make_square(vf, vr));
          Piece p = pos.piece_on(sq);
          for (int k = 0; k < kKinds; ++k) {
            bool own = p != NO_PIECE && color_of(p) == us && type_of(p) == kKindTypes[k];
            bool opp = p != NO_PIECE && color_of(p) != us && type_of(p) == kKindTypes[k];
            ASSERT_EQ(plane_at(planes, kOwnPiecePlanes + k, vr, vf), own ? 1.f : 0.f);
            ASSERT_EQ(plane_at(planes, kOppPiecePlanes + k, vr, vf), opp ? 1.f : 0.f);
            ASSERT_FLOAT_EQ(plane_at(planes, kOwnHandPlanes + k, vr, vf),
                            float(pos.hand(us, kKindTypes[k])) / float(kInitialHand[k]));
            ASSERT_FLOAT_EQ(plane_at(planes, kOppHandPlanes + k, vr, vf),
                            float(pos.hand(~us, kKindTypes[k])) / float(kInitialHand[k]));
          }
          ASSERT_FLOAT_EQ(plane_at(planes, kPlyPlane, vr, vf), float(pos.ply()) / 40.f);
          ASSERT_EQ(plane_at(planes, kBalanceKingsPlane, vr, vf), r == RuleSet::Fuseki ? 0.f : 1.f);
          ASSERT_EQ(plane_at(planes, kNihikyoPlane, vr, vf), r == RuleSet::Balance ? 1.f : 0.f);
          ASSERT_EQ(plane_at(planes, kOnesPlane, vr, vf), 1.f);
        }
      // The mover's own pieces always stand in view ranks 5..8.
      for (int k = 0; k < kKinds; ++k)
        for (int vr = 0; vr < kFirstCampRank; ++vr)
          for (int vf = 0; vf < kBoardFiles; ++vf)
            ASSERT_EQ(plane_at(planes, kOwnPiecePlanes + k, vr, vf), 0.f);
    }
}

// The position turned 180 degrees with the colours swapped, Gote to move.
std::string mirrored_sfen(const Position& pos) {
  std::string board;
  for (int r = 0; r < RANK_NB; ++r) {
    int empty = 0;
    for (int f = MAX_FILES - 1; f >= 0; --f) {
      Piece p = pos.piece_on(SQ_MAX - 1 - make_square(f, r));
      if (p == NO_PIECE) {
        ++empty;
        continue;
      }
      if (empty) board += std::to_string(empty);
      empty = 0;
      char letter = pos.variant().letter[type_of(p)];
      board += color_of(p) == BLACK ? char(std::tolower(letter)) : letter;  // colours swap
    }
    if (empty) board += std::to_string(empty);
    if (r + 1 < RANK_NB) board += '/';
  }
  std::string hand;
  for (int c = 0; c < COLOR_NB; ++c)
    for (int pt = KING; pt >= PAWN; --pt) {
      int n = pos.hand(~Color(c), PieceType(pt));
      if (!n) continue;
      if (n > 1) hand += std::to_string(n);
      char letter = pos.variant().letter[pt];
      hand += c == BLACK ? letter : char(std::tolower(letter));
    }
  return board + (pos.side_to_move() == BLACK ? " w " : " b ") + (hand.empty() ? "-" : hand) + " " +
         std::to_string(pos.ply() + 1);
}

TEST(Encode, GoteViewIsTheFlipOfSenteViewForAMirroredPosition) {
  // Placement positions cannot be mirrored (Sente always has placed as many pieces as Gote or
  // one more), so the placed positions after ply 40 are: same side counts, any side to move.
  Rng rng(31);
  int checked = 0;
  for (RuleSet r : kPlacementRules)
    for (int g = 0; g < 20 && checked < 9; ++g) {
      Position pos = random_placement(r, 40, rng);
      if (pos.king_attacked(BLACK) || pos.king_attacked(WHITE)) continue;
      Position mirror = Position::from_sfen(mirrored_sfen(pos), r);
      ASSERT_EQ(mirror.side_to_move(), WHITE);
      ASSERT_EQ(mirror.ply(), pos.ply());
      std::vector<float> a(kInputSize), b(kInputSize);
      encode(pos, a.data());
      encode(mirror, b.data());
      ASSERT_EQ(a, b) << pos.sfen() << " vs " << mirror.sfen();
      ++checked;
    }
  EXPECT_GE(checked, 6);
  // And a drop's index is the index of the rotated drop for the other side.
  for (int i = 0; i < kPolicySize; ++i) {
    Move s = policy_move(BLACK, i), w = policy_move(WHITE, i);
    EXPECT_EQ(dropped_type(s), dropped_type(w));
    EXPECT_EQ(move_to(w), SQ_MAX - 1 - move_to(s));
  }
}

TEST(Encode, MirrorIsASymmetryOfPlacementAndOfTheEncoding) {
  // Every rule set (Nihikyo's files included): the mirrored position's legal drops are the
  // mirrors of the position's, and its planes (native and site) the mirrored planes.
  int positions = 0, drops = 0;
  for (const Position& pos : random_placement_positions(240, 5)) {
    const Position mirror = testing::files_mirrored(pos);
    ASSERT_EQ(mirror.side_to_move(), pos.side_to_move());
    ASSERT_EQ(testing::files_mirrored(mirror).sfen(), pos.sfen());
    uint8_t mask[kPolicySize], mirror_mask[kPolicySize];
    ASSERT_EQ(legal_mask(pos, mask), legal_mask(mirror, mirror_mask)) << pos.sfen();
    for (int a = 0; a < kPolicySize; ++a) {
      ASSERT_EQ(mask[a], mirror_mask[mirror_policy_index(a)]) << pos.sfen() << " index " << a;
      const Move m = policy_move(pos, a), mm = policy_move(pos, mirror_policy_index(a));
      ASSERT_EQ(dropped_type(m), dropped_type(mm));
      ASSERT_EQ(file_of(move_to(mm)), MAX_FILES - 1 - file_of(move_to(m)));
      ASSERT_EQ(rank_of(move_to(mm)), rank_of(move_to(m)));
      drops += mask[a];
    }
    std::vector<float> a(kInputSize), b(kInputSize);
    encode(pos, a.data());
    encode(mirror, b.data());
    mirror_planes(a.data(), kInputPlanes, false);
    ASSERT_EQ(a, b) << pos.sfen();
    std::vector<float> sa(kSiteInputSize), sb(kSiteInputSize);
    encode_site(pos, sa.data());
    encode_site(mirror, sb.data());
    mirror_planes(sa.data(), kSiteInputPlanes, true);
    ASSERT_EQ(sa, sb) << pos.sfen();
    ++positions;
  }
  EXPECT_EQ(positions, 240);
  EXPECT_GT(drops, 240 * 20);
  // An index's mirror's mirror is itself, and some indices (file 5) are their own mirrors.
  int fixed = 0;
  for (int i = 0; i < kPolicySize; ++i) {
    EXPECT_EQ(mirror_policy_index(mirror_policy_index(i)), i);
    fixed += mirror_policy_index(i) == i;
  }
  EXPECT_EQ(fixed, kKinds * kCampRanks);
}

TEST(Encode, BatchConcatenatesPositions) {
  std::vector<Position> positions = sample_positions(1, 13);
  EncodedBatch batch;
  for (const Position& p : positions) batch.add(p);
  ASSERT_EQ(batch.size(), int(positions.size()));
  for (size_t i = 0; i < positions.size(); i += 17) {
    std::vector<float> planes(kInputSize);
    std::vector<uint8_t> mask(kPolicySize);
    encode(positions[i], planes.data());
    EXPECT_EQ(legal_mask(positions[i], mask.data()), batch.legal_counts[i]);
    EXPECT_TRUE(
        std::equal(planes.begin(), planes.end(), batch.planes.begin() + long(i) * kInputSize));
    EXPECT_TRUE(std::equal(mask.begin(), mask.end(), batch.masks.begin() + long(i) * kPolicySize));
  }
}

// --- Network and inference ---------------------------------------------------------------------

TEST(Network, ForwardShapes) {
  torch::manual_seed(1);
  PolicyValueNet net(NetConfig{16, 2});
  net->eval();
  auto [logits, value] = net->forward(torch::randn({5, kInputPlanes, 9, 9}));
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{5, kPolicySize}));
  EXPECT_EQ(value.sizes(), (std::vector<int64_t>{5}));
  EXPECT_TRUE((value.abs() <= 1).all().item<bool>());
  EXPECT_THROW(PolicyValueNet(NetConfig{0, 2}), std::invalid_argument);
}

TEST(Network, MaskedLogSoftmaxIsMinusInfinityOnIllegalDrops) {
  torch::Tensor logits = torch::randn({2, kPolicySize});
  torch::Tensor mask = torch::zeros({2, kPolicySize}, torch::kBool);
  mask.index_put_({0, torch::indexing::Slice(0, 10)}, true);
  mask.index_put_({1, 100}, true);
  torch::Tensor logp = masked_log_softmax(logits, mask);
  EXPECT_TRUE(torch::isinf(logp.masked_select(mask.logical_not())).all().item<bool>());
  EXPECT_NEAR(logp[0].exp().sum().item<float>(), 1.0f, 1e-5);
  EXPECT_NEAR(logp[1][100].item<float>(), 0.0f, 1e-6);
}

TEST(Network, DeviceSelection) {
  EXPECT_EQ(select_device("cpu"), torch::Device(torch::kCPU));
  EXPECT_THROW(select_device("tpu"), std::runtime_error);
  EXPECT_THROW(select_device("cuda:x"), std::runtime_error);
  if (!torch::cuda::is_available()) {
    try {
      select_device("cuda");
      FAIL() << "cuda selected without CUDA";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA is not available"), std::string::npos);
    }
    EXPECT_EQ(select_device("auto"), torch::Device(torch::kCPU));
  }
}

TEST(Evaluator, PolicySumsToOneOverExactlyTheLegalDrops) {
  torch::manual_seed(2);
  Evaluator eval(NetConfig{16, 2}, {"cpu", 1});
  std::vector<Position> positions = sample_positions(1, 14);
  std::vector<const Position*> ptrs;
  for (const Position& p : positions) ptrs.push_back(&p);
  std::vector<Evaluation> out = eval.evaluate(ptrs);
  ASSERT_EQ(out.size(), positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    uint8_t mask[kPolicySize];
    legal_mask(positions[i], mask);
    double sum = 0;
    for (int j = 0; j < kPolicySize; ++j) {
      if (mask[j])
        EXPECT_GT(out[i].policy[size_t(j)], 0.f);
      else
        ASSERT_EQ(out[i].policy[size_t(j)], 0.f);
      sum += out[i].policy[size_t(j)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_LE(std::abs(out[i].value), 1.f);
  }
}

TEST(Evaluator, BatchedEqualsOneAtATime) {
  torch::manual_seed(3);
  Evaluator eval(NetConfig{16, 2}, {"cpu", 1});
  std::vector<Position> positions = sample_positions(1, 15);
  positions.erase(positions.begin() + 24, positions.end());
  std::vector<const Position*> ptrs;
  for (const Position& p : positions) ptrs.push_back(&p);
  std::vector<Evaluation> batched = eval.evaluate(ptrs);
  for (size_t i = 0; i < positions.size(); ++i) {
    Evaluation single = eval.evaluate(positions[i]);
    EXPECT_NEAR(single.value, batched[i].value, 1e-5);
    for (int j = 0; j < kPolicySize; ++j)
      ASSERT_NEAR(single.policy[size_t(j)], batched[i].policy[size_t(j)], 1e-5);
  }
}

TEST(Evaluator, SampleDrawsLegalDropsByTemperature) {
  torch::manual_seed(4);
  Evaluator eval(NetConfig{8, 1}, {"cpu", 1});
  Rng rng(9);
  Position pos = random_placement(RuleSet::Balance, 6, rng);
  Evaluation e = eval.evaluate(pos);
  MoveList list = legal(pos);
  int best = 0;
  for (int i = 1; i < kPolicySize; ++i)
    if (e.policy[size_t(i)] > e.policy[size_t(best)]) best = i;
  EXPECT_EQ(Evaluator::sample(pos, e, 0.0, rng), policy_move(pos, best));
  // A hand-made policy: 3/4 on one drop, 1/4 on another; at T = 1 the draw follows it.
  std::vector<float> policy(kPolicySize, 0.f);
  int a = policy_index(pos, list.moves[0]), b = policy_index(pos, list.moves[1]);
  policy[size_t(a)] = 0.75f;
  policy[size_t(b)] = 0.25f;
  int hits_a = 0;
  for (int i = 0; i < 4000; ++i) {
    Move m = sample_drop(pos, policy.data(), 1.0, rng);
    ASSERT_TRUE(m == list.moves[0] || m == list.moves[1]);
    hits_a += m == list.moves[0];
  }
  EXPECT_NEAR(hits_a / 4000.0, 0.75, 0.03);
  // A low temperature sharpens it, a high one flattens it toward 1/2.
  int sharp = 0, flat = 0;
  for (int i = 0; i < 2000; ++i) {
    sharp += sample_drop(pos, policy.data(), 0.25, rng) == list.moves[0];
    flat += sample_drop(pos, policy.data(), 8.0, rng) == list.moves[0];
  }
  EXPECT_GT(sharp / 2000.0, 0.95);
  EXPECT_NEAR(flat / 2000.0, 0.53, 0.05);
  // Every drawn move of the network's own policy is legal.
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(list.contains(Evaluator::sample(pos, e, 1.0, rng)));
}

// A few Adam steps toward a one-hot target on the least likely legal drop.
TEST(Evaluator, TrainingMovesThePolicyTowardATarget) {
  torch::manual_seed(5);
  PolicyValueNet net(NetConfig{16, 2});
  std::vector<Position> positions = sample_positions(1, 16);
  positions.erase(positions.begin() + 8, positions.end());
  EncodedBatch batch;
  for (const Position& p : positions) batch.add(p);
  torch::Tensor x = planes_tensor(batch, torch::kCPU), mask = mask_tensor(batch, torch::kCPU);

  Evaluator before(*net, {"cpu", 1});
  std::vector<float> p0(size_t(batch.size()) * kPolicySize), v0(size_t(batch.size()));
  before.evaluate(batch, p0.data(), v0.data());
  torch::Tensor target = torch::zeros({batch.size(), kPolicySize});
  std::vector<int> chosen;
  for (int i = 0; i < batch.size(); ++i) {
    int worst = -1;
    for (int j = 0; j < kPolicySize; ++j)
      if (batch.masks[size_t(i * kPolicySize + j)] &&
          (worst < 0 || p0[size_t(i * kPolicySize + j)] < p0[size_t(i * kPolicySize + worst)]))
        worst = j;
    chosen.push_back(worst);
    target[i][worst] = 1.0f;
  }
  torch::Tensor value_target = torch::full({batch.size()}, 0.5f);

  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-2));
  net->train();
  for (int step = 0; step < 30; ++step) {
    adam.zero_grad();
    auto [logits, value] = net->forward(x);
    torch::Tensor loss =
        policy_cross_entropy(logits, mask, target) + torch::mse_loss(value, value_target);
    loss.backward();
    adam.step();
  }
  Evaluator after(*net, {"cpu", 1});
  std::vector<float> p1(p0.size()), v1(v0.size());
  after.evaluate(batch, p1.data(), v1.data());
  for (int i = 0; i < batch.size(); ++i) {
    float was = p0[size_t(i * kPolicySize + chosen[size_t(i)])];
    float now = p1[size_t(i * kPolicySize + chosen[size_t(i)])];
    EXPECT_GT(now, 0.5f) << "position " << i << ": " << was << " -> " << now;
    EXPECT_LT(std::abs(v1[size_t(i)] - 0.5f), std::abs(v0[size_t(i)] - 0.5f) + 1e-3f);
  }
}

// A small net after a few training steps, with the batch it trained on.
struct Trained {
  PolicyValueNet net{NetConfig{16, 2}};
  torch::optim::Adam adam{net->parameters(), torch::optim::AdamOptions(1e-3)};
  torch::Tensor x, mask, target;

  explicit Trained(int steps) {
    std::vector<Position> positions = sample_positions(1, 17);
    positions.erase(positions.begin() + 16, positions.end());
    EncodedBatch batch;
    for (const Position& p : positions) batch.add(p);
    x = planes_tensor(batch, torch::kCPU).clone();
    mask = mask_tensor(batch, torch::kCPU);
    target = mask.to(torch::kFloat32) / mask.sum(1, true).to(torch::kFloat32);
    for (int i = 0; i < steps; ++i) step(net, adam);
  }
  void step(PolicyValueNet& n, torch::optim::Adam& opt) {
    n->train();
    opt.zero_grad();
    auto [logits, value] = n->forward(x);
    (policy_cross_entropy(logits, mask, target) + value.square().mean()).backward();
    opt.step();
  }
};

TEST(Evaluator, FoldedInferenceNetMatchesTheModule) {
  torch::manual_seed(11);
  Trained t(3);  // batch-norm statistics away from their initial values
  t.net->eval();
  torch::NoGradGuard no_grad;
  InferenceNet frozen(*t.net, torch::kCPU);
  auto [l0, v0] = t.net->forward(t.x);
  auto [l1, v1] = frozen.forward(t.x);
  EXPECT_LT((l0 - l1).abs().max().item<float>(), 1e-5f);
  EXPECT_LT((v0 - v1).abs().max().item<float>(), 1e-5f);

  // The evaluator's probabilities are the module's masked softmax, chunked or not.
  EncodedBatch batch;
  for (const Position& p : sample_positions(1, 17)) batch.add(p);
  torch::Tensor expected =
      masked_softmax(std::get<0>(t.net->forward(planes_tensor(batch, torch::kCPU))),
                     mask_tensor(batch, torch::kCPU));
  for (int chunk : {0, 7}) {
    Evaluator eval(*t.net, {"cpu", 1, chunk});
    std::vector<float> policy(size_t(batch.size()) * kPolicySize), values(size_t(batch.size()));
    eval.evaluate(batch, policy.data(), values.data());
    torch::Tensor got = torch::from_blob(policy.data(), {batch.size(), kPolicySize});
    EXPECT_LT((got - expected).abs().max().item<float>(), 1e-5f) << "chunk " << chunk;
  }
}

// bf16 inference: the same probabilities to within bfloat16's precision; fp16 on CPU is refused.
TEST(Evaluator, Bfloat16MatchesFloat32Closely) {
  torch::manual_seed(12);
  Trained t(3);
  t.net->eval();
  EncodedBatch batch;
  for (const Position& p : sample_positions(1, 40)) batch.add(p);
  std::vector<float> p32(size_t(batch.size()) * kPolicySize), v32(size_t(batch.size()));
  std::vector<float> p16(p32.size()), v16(v32.size());
  Evaluator fp32(*t.net, {"cpu", 1, 64, "fp32"});
  Evaluator bf16(*t.net, {"cpu", 1, 64, "bf16"});
  fp32.evaluate(batch, p32.data(), v32.data());
  bf16.evaluate(batch, p16.data(), v16.data());
  float worst_p = 0, worst_v = 0;
  for (size_t i = 0; i < p32.size(); ++i) {
    worst_p = std::max(worst_p, std::abs(p32[i] - p16[i]));
    if (p32[i] == 0) {
      EXPECT_EQ(p16[i], 0.0f);  // illegal drops stay impossible
    }
  }
  for (size_t i = 0; i < v32.size(); ++i) worst_v = std::max(worst_v, std::abs(v32[i] - v16[i]));
  EXPECT_LT(worst_p, 0.02f);
  EXPECT_LT(worst_v, 0.05f);
  EXPECT_GT(worst_p, 0.0f);  // it did run in another precision
  try {
    Evaluator half(*t.net, {"cpu", 1, 64, "fp16"});
    FAIL() << "fp16 on CPU accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a CUDA device"), std::string::npos) << e.what();
  }
}

// --- Checkpoints and export ------------------------------------------------------------------

TEST(Checkpoint, RoundTripRestoresOutputsCountersAndOptimizer) {
  torch::manual_seed(6);
  Trained t(3);
  const std::string path = temp_path("roundtrip.ckpt");
  TrainingState state{123456789012345ull, 7, {1, 0xfedcba9876543210ull, 3}};
  save_checkpoint(path, *t.net, &t.adam, state);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  Checkpoint c = load_checkpoint(path);
  EXPECT_EQ(c.config, (NetConfig{16, 2}));
  EXPECT_EQ(c.state, state);
  ASSERT_TRUE(c.has_optimizer());
  t.net->eval();
  c.net->eval();
  auto [l0, v0] = t.net->forward(t.x);
  auto [l1, v1] = c.net->forward(t.x);
  EXPECT_TRUE(torch::equal(l0, l1));
  EXPECT_TRUE(torch::equal(v0, v1));

  // One more step from both sides lands on the same weights only if Adam's moments came back.
  torch::optim::Adam adam2(c.net->parameters(), torch::optim::AdamOptions(0.5));
  c.restore_optimizer(adam2);
  t.step(t.net, t.adam);
  t.step(c.net, adam2);
  auto a = t.net->named_parameters();
  for (const auto& p : c.net->named_parameters())
    EXPECT_TRUE(torch::allclose(p.value(), a[p.key()], 1e-6, 1e-7)) << p.key();

  // Identical training gives identical files, byte for byte (the run's published hashes rely on
  // it): a second net trained the same way, from other objects at other addresses.
  {
    torch::manual_seed(6);
    Trained u(4);  // t has taken one more step since
    const std::string twin = temp_path("twin.ckpt");
    save_checkpoint(path, *t.net, &t.adam, state);
    save_checkpoint(twin, *u.net, &u.adam, state);
    Trained(0);  // other allocations in between do not matter either
    EXPECT_EQ(read_file(path), read_file(twin));
    std::filesystem::remove(twin);
  }

  // An optimizer over another architecture does not take the state.
  PolicyValueNet other(NetConfig{8, 1});
  torch::optim::Adam wrong(other->parameters());
  EXPECT_THROW(c.restore_optimizer(wrong), CheckpointError);

  // Saved without an optimizer: restoring one is a clear error.
  save_checkpoint(path, *t.net, nullptr, {});
  Checkpoint bare = load_checkpoint(path);
  EXPECT_FALSE(bare.has_optimizer());
  torch::optim::Adam adam3(bare.net->parameters());
  EXPECT_THROW(bare.restore_optimizer(adam3), CheckpointError);
  std::filesystem::remove(path);
}

// The message of the CheckpointError `path` raises, which must name the file.
std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const CheckpointError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a CheckpointError: " << e.what();
    return "";
  }
  ADD_FAILURE() << path << " loaded";
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Checkpoint, WrongTruncatedAndForeignFilesThrowClearErrors) {
  torch::manual_seed(7);
  Trained t(1);
  const std::string good = temp_path("good.ckpt"), bad = temp_path("bad.ckpt");
  save_checkpoint(good, *t.net, &t.adam, {5, 1, {}});
  const std::string bytes = read_bytes(good);

  EXPECT_TRUE(contains(load_error(temp_path("missing.ckpt")), "cannot open"));
  write_bytes(bad, "");
  EXPECT_TRUE(contains(load_error(bad), "empty"));
  EXPECT_TRUE(contains(load_error(std::filesystem::temp_directory_path().string()), "cannot read"));
  Rng rng(1);
  std::string noise(5000, '\0');
  for (char& ch : noise) ch = char(rng.below(256));
  write_bytes(bad, noise);
  EXPECT_TRUE(contains(load_error(bad), "not a fusekilab checkpoint"));
  write_bytes(bad, "PK\x03\x04" + noise);
  EXPECT_TRUE(contains(load_error(bad), "truncated or damaged"));
  for (size_t keep : {size_t(10), bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(bad, bytes.substr(0, keep));
    EXPECT_TRUE(contains(load_error(bad), "truncated or damaged")) << keep << " bytes kept";
  }

  // A torch archive from elsewhere: a saved tensor, and a TorchScript module.
  torch::save(torch::ones({3}), bad);
  EXPECT_TRUE(contains(load_error(bad), "not a fusekilab checkpoint"));
  export_torchscript(*t.net, bad);
  EXPECT_TRUE(contains(load_error(bad), "not a fusekilab checkpoint"));

  // Flipped bytes: either a clear error, or (zip padding, unused fields) the same content.
  const uint64_t good_hash = load_checkpoint(good).content_hash;
  int rejected = 0, flips = 0;
  for (size_t at = 7; at < bytes.size(); at += bytes.size() / 97 + 1, ++flips) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x5a);
    write_bytes(bad, flipped);
    try {
      Checkpoint c = load_checkpoint(bad);
      EXPECT_EQ(c.content_hash, good_hash) << "byte " << at;
    } catch (const CheckpointError& e) {
      EXPECT_TRUE(contains(e.what(), bad)) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(rejected, flips / 2);
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

// Writes the entries of a checkpoint by hand, as a damaged or future writer might.
void write_forged(const std::string& path, const PolicyValueNetImpl& net, int64_t version,
                  int64_t hash, const std::string& architecture = "") {
  torch::serialize::OutputArchive out;
  out.write("fusekilab", c10::IValue(std::string("fusekilab-checkpoint")));
  out.write("format_version", torch::tensor({version}, torch::kInt64));
  out.write("config", torch::tensor({int64_t(net.config().channels), int64_t(net.config().blocks)},
                                    torch::kInt64));
  if (version >= 3)
    out.write("architecture",
              c10::IValue(architecture.empty() ? architecture_record(net.config()) : architecture));
  out.write("counters", torch::tensor({int64_t(1), int64_t(2)}, torch::kInt64));
  out.write("rng_state", torch::empty({0}, torch::kInt64));
  torch::serialize::OutputArchive weights;
  for (const auto& p : net.named_parameters()) {
    std::string key = p.key();
    std::replace(key.begin(), key.end(), '.', '_');
    weights.write(key, p.value().detach());
  }
  for (const auto& b : net.named_buffers()) {
    std::string key = b.key();
    std::replace(key.begin(), key.end(), '.', '_');
    weights.write(key, b.value(), true);
  }
  out.write("weights", weights);
  out.write("optimizer", torch::empty({0}, torch::kUInt8));
  out.write("content_hash", torch::tensor({hash}, torch::kInt64));
  out.save_to(path);
}

TEST(Checkpoint, ContentHashAndFormatVersionAreChecked) {
  torch::manual_seed(8);
  PolicyValueNet net(NetConfig{8, 1});
  const std::string path = temp_path("forged.ckpt");
  write_forged(path, *net, kCheckpointFormatVersion, 12345);
  EXPECT_TRUE(contains(load_error(path), "content hash mismatch"));
  write_forged(path, *net, kCheckpointFormatVersion + 1, 12345);
  EXPECT_TRUE(
      contains(load_error(path), "format version " + std::to_string(kCheckpointFormatVersion + 1)));
  std::filesystem::remove(path);
}

TEST(Checkpoint, TheArchitectureRecordIsCheckedOnLoad) {
  torch::manual_seed(8);
  PolicyValueNet net(NetConfig{8, 1});
  const std::string path = temp_path("arch.ckpt");
  save_checkpoint(path, *net, nullptr, {});
  Checkpoint c = load_checkpoint(path);
  EXPECT_EQ(c.config, (NetConfig{8, 1}));
  EXPECT_EQ(c.config.input_format, kInputFormat);
  // A network made for another input encoding or label space: one clear error naming it.
  nlohmann::json a = nlohmann::json::parse(architecture_record(net->config()));
  a["input_format"] = "planes-99";
  write_forged(path, *net, kCheckpointFormatVersion, 12345, a.dump());
  EXPECT_TRUE(contains(load_error(path),
                       "a network of input_format 'planes-99' and policy 'drops-8x36'; this "
                       "build runs 'planes-36' with 'drops-8x36' or 'site-62+59' with 'site-8x81'"))
      << load_error(path);
  a = nlohmann::json::parse(architecture_record(net->config()));
  a["policy"] = "site-8x81";  // the site's labels with the native inputs: no such network
  write_forged(path, *net, kCheckpointFormatVersion, 12345, a.dump());
  EXPECT_TRUE(contains(load_error(path), "and policy 'site-8x81'")) << load_error(path);
  // The site's format is recorded and comes back.
  PolicyValueNet site(with_format(NetConfig{8, 1}, "site"));
  save_checkpoint(path, *site, nullptr, {});
  EXPECT_EQ(load_checkpoint(path).config, with_format(NetConfig{8, 1}, "site"));
  EXPECT_TRUE(load_checkpoint(path).config.site());
  a = nlohmann::json::parse(architecture_record(net->config()));
  a["blocks"] = 7;
  write_forged(path, *net, kCheckpointFormatVersion, 12345, a.dump());
  EXPECT_TRUE(contains(load_error(path), "disagrees with the sizes")) << load_error(path);
  std::filesystem::remove(path);
}

// [network] value_channels and value_hidden: the head's sizes are recorded, come back, and run
// folded as the module does; the default head's record names neither (earlier checkpoints'
// content hashes stay valid).
TEST(Checkpoint, AWiderValueHeadIsRecordedAndComesBack) {
  torch::manual_seed(12);
  NetConfig config{8, 1};
  EXPECT_TRUE(config.default_value_head());
  EXPECT_FALSE(contains(architecture_record(config), "value"));
  config.value_channels = 4;
  config.value_hidden = 24;
  EXPECT_EQ(describe(config), "8 channels x 1 blocks, value head 4 x 24");
  PolicyValueNet net(config);
  EXPECT_EQ(net->value_conv->weight.sizes(), torch::IntArrayRef({4, 8, 1, 1}));
  EXPECT_EQ(net->value_fc1->weight.sizes(), torch::IntArrayRef({24, 4 * kPlaneSize}));
  EXPECT_EQ(net->value_fc2->weight.sizes(), torch::IntArrayRef({1, 24}));

  const std::string path = temp_path("wide-value.ckpt");
  save_checkpoint(path, *net, nullptr, {});
  Checkpoint c = load_checkpoint(path);
  EXPECT_EQ(c.config, config);
  EncodedBatch batch;
  for (const Position& p : sample_positions(1, 17)) batch.add(p);
  const torch::Tensor x = planes_tensor(batch, torch::kCPU).clone();
  torch::NoGradGuard no_grad;
  net->eval();
  c.net->eval();
  EXPECT_TRUE(torch::equal(std::get<1>(net->forward(x)), std::get<1>(c.net->forward(x))));
  InferenceNet frozen(*c.net, torch::kCPU);
  EXPECT_LT(
      (std::get<1>(frozen.forward(x)) - std::get<1>(net->forward(x))).abs().max().item<float>(),
      1e-5f);

  // A record that names another head than the weights have, or an impossible one: clear errors.
  nlohmann::json a = nlohmann::json::parse(architecture_record(config));
  a["value_channels"] = 2;
  write_forged(path, *net, kCheckpointFormatVersion, 12345, a.dump());
  EXPECT_TRUE(contains(load_error(path), "value_conv")) << load_error(path);
  a["value_channels"] = 0;
  write_forged(path, *net, kCheckpointFormatVersion, 12345, a.dump());
  EXPECT_TRUE(contains(load_error(path), "implausible value head (0 channels")) << load_error(path);
  std::filesystem::remove(path);
  config.value_channels = kMaxValueChannels + 1;
  EXPECT_THROW(PolicyValueNet{config}, std::invalid_argument);
}

TEST(Checkpoint, TorchScriptExportMatchesTheModule) {
  torch::manual_seed(9);
  Trained t(2);  // BN running statistics away from their initial values
  t.net->eval();
  const std::string path = temp_path("export.pt");
  export_torchscript(*t.net, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  torch::jit::Module loaded = torch::jit::load(path);
  EXPECT_EQ(loaded.attr("channels").toInt(), 16);
  EXPECT_EQ(loaded.attr("policy_size").toInt(), kPolicySize);
  torch::NoGradGuard no_grad;
  for (int n : {1, 16}) {
    torch::Tensor x = t.x.slice(0, 0, n);
    auto [logits, value] = t.net->forward(x);
    auto out = loaded.forward({x}).toTuple();
    torch::Tensor jl = out->elements()[0].toTensor(), jv = out->elements()[1].toTensor();
    ASSERT_EQ(jl.sizes(), logits.sizes());
    ASSERT_EQ(jv.sizes(), value.sizes());
    EXPECT_LT((jl - logits).abs().max().item<float>(), 1e-5f);
    EXPECT_LT((jv - value).abs().max().item<float>(), 1e-5f);
  }
  std::filesystem::remove(path);
}

TEST(Checkpoint, EvaluatorLoadsACheckpoint) {
  torch::manual_seed(10);
  Trained t(1);
  const std::string path = temp_path("eval.ckpt");
  save_checkpoint(path, *t.net, nullptr, {});
  Evaluator a(*t.net, {"cpu", 1});
  Evaluator b = Evaluator::from_checkpoint(path, {"cpu", 1});
  Rng rng(3);
  Position pos = random_placement(RuleSet::Balance, 9, rng);
  EXPECT_EQ(a.evaluate(pos).policy, b.evaluate(pos).policy);
  EXPECT_THROW(Evaluator::from_checkpoint(temp_path("nothing.ckpt")), std::runtime_error);
  std::filesystem::remove(path);
}

// A network in the site's format (net/site_features.h): the module, its folded inference form,
// the TorchScript export and the evaluator agree; the policy covers exactly the legal drops; a
// batch encoded for the other format is refused.
TEST(SiteFormat, ModuleInferenceTorchScriptAndEvaluatorAgree) {
  torch::manual_seed(21);
  PolicyValueNet net(with_format(NetConfig{16, 2}, "site"));
  net->eval();
  EncodedBatch batch;
  batch.site = true;
  std::vector<Position> positions = sample_positions(3, 17);
  for (const Position& p : positions) batch.add(p);
  ASSERT_EQ(batch.planes.size(), positions.size() * kSiteInputSize);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = planes_tensor(batch, torch::kCPU);
  ASSERT_EQ(x.size(1), kSiteInputPlanes);
  auto [l0, v0] = net->forward(x);
  ASSERT_EQ(l0.size(1), kPolicySize);
  auto [l1, v1] = InferenceNet(*net, torch::kCPU).forward(x);
  EXPECT_LT((l0 - l1).abs().max().item<float>(), 1e-5f);
  EXPECT_LT((v0 - v1).abs().max().item<float>(), 1e-5f);
  const std::string path = temp_path("site.pt");
  export_torchscript(*net, path);
  torch::jit::Module loaded = torch::jit::load(path);
  EXPECT_EQ(loaded.attr("input_planes").toInt(), kSiteInputPlanes);
  auto out = loaded.forward({x}).toTuple();
  EXPECT_LT((out->elements()[0].toTensor() - l0).abs().max().item<float>(), 1e-5f);
  std::filesystem::remove(path);

  Evaluator eval(*net, {"cpu", 1});
  std::vector<float> policy(positions.size() * kPolicySize), values(positions.size());
  eval.evaluate(batch, policy.data(), values.data());
  for (size_t i = 0; i < positions.size(); ++i) {
    uint8_t mask[kPolicySize];
    legal_mask(positions[i], mask);
    double sum = 0;
    for (int j = 0; j < kPolicySize; ++j) {
      if (!mask[j]) {
        ASSERT_EQ(policy[i * kPolicySize + size_t(j)], 0.f);
      }
      sum += policy[i * kPolicySize + size_t(j)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  EncodedBatch native;
  native.add(positions[0]);
  EXPECT_THROW(eval.evaluate(native, policy.data(), values.data()), std::invalid_argument);
}

}  // namespace
}  // namespace fuseki::net
