#include "tune/strategy/boosted_trees.hpp"

#include <algorithm>
#include <cstdint>

#include "common/error.hpp"

namespace mpgemm::gbt {

namespace {

// Row-major bins, so that one pass over a node's rows fills every feature's histogram: the features' sums are
// independent chains, where a pass per feature made each add wait for the one before it in the same bin (rows
// mostly share a few bins). Each bin still adds its rows in ascending order, so the sums are the same to the bit
// (where the compiler contracts no multiply-add: GCC on x86-64 without -march, as built here).
struct Binned {
  std::size_t features = 0;
  std::vector<std::vector<double>> cuts;  // per feature: ascending cut values
  std::vector<std::size_t> offset;        // per feature: where its bins start in a node's histogram
  std::size_t total_bins = 0;
  std::vector<std::size_t> splittable;  // the features with at least two bins: the only ones a split can use
  std::vector<std::uint16_t> bins;      // [row * features + feature]: index of the first cut >= value
  std::uint16_t bin(std::size_t row, std::size_t feature) const { return bins[row * features + feature]; }
};

Binned bin_features(const std::vector<std::vector<double>>& rows, std::size_t max_bins) {
  const std::size_t features = rows.empty() ? 0 : rows[0].size();
  Binned b;
  b.features = features;
  b.cuts.resize(features);
  b.bins.resize(rows.size() * features);
  for (std::size_t f = 0; f < features; ++f) {
    std::vector<double> values;
    values.reserve(rows.size());
    for (const auto& r : rows) values.push_back(r[f]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::vector<double>& cuts = b.cuts[f];
    if (values.size() <= max_bins) {
      cuts = values;
    } else {
      for (std::size_t i = 1; i <= max_bins; ++i) cuts.push_back(values[i * values.size() / max_bins - 1]);
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    }
    b.offset.push_back(b.total_bins);
    b.total_bins += cuts.size();
    if (cuts.size() >= 2) b.splittable.push_back(f);
    for (std::size_t i = 0; i < rows.size(); ++i)
      b.bins[i * features + f] =
          static_cast<std::uint16_t>(std::lower_bound(cuts.begin(), cuts.end(), rows[i][f]) - cuts.begin());
  }
  return b;
}

class TreeBuilder {
 public:
  TreeBuilder(const Binned& binned, const std::vector<double>& residual, const std::vector<double>& weight,
              const TreeSettings& s)
      : b_(binned), r_(residual), w_(weight), s_(s) {}

  template <typename NodeT>
  int build(std::vector<NodeT>& nodes, std::vector<std::size_t>& rows, std::size_t depth) {
    double sw = 0, swr = 0;
    for (std::size_t i : rows) {
      sw += w_[i];
      swr += w_[i] * r_[i];
    }
    const int id = static_cast<int>(nodes.size());
    nodes.push_back(NodeT{});
    nodes[id].value = swr / (sw + s_.l2);
    if (depth == s_.depth || rows.size() < 2) return id;
    // Best split by the reduction of the weighted squared error: SL^2/WL + SR^2/WR - S^2/W.
    const double parent = swr * swr / (sw + s_.l2);
    double best_gain = 1e-12;
    int best_f = -1;
    std::size_t best_cut = 0;
    // Per bin: the sum of weights, then of weight x residual.
    std::vector<double> h(2 * b_.total_bins, 0.0);
    for (std::size_t i : rows) {
      const double w = w_[i], wr = w_[i] * r_[i];
      const std::uint16_t* bins = &b_.bins[i * b_.features];
      for (std::size_t f : b_.splittable) {
        double* at = &h[2 * (b_.offset[f] + bins[f])];
        at[0] += w;
        at[1] += wr;
      }
    }
    for (std::size_t f : b_.splittable) {
      const std::size_t nb = b_.cuts[f].size();
      const double* h_f = &h[2 * b_.offset[f]];
      double lw = 0, lr = 0;
      for (std::size_t c = 0; c + 1 < nb; ++c) {
        lw += h_f[2 * c];
        lr += h_f[2 * c + 1];
        const double rw = sw - lw, rr = swr - lr;
        if (lw < s_.min_leaf_weight || rw < s_.min_leaf_weight) continue;
        const double gain = lr * lr / (lw + s_.l2) + rr * rr / (rw + s_.l2) - parent;
        if (gain > best_gain) {
          best_gain = gain;
          best_f = static_cast<int>(f);
          best_cut = c;
        }
      }
    }
    if (best_f < 0) return id;
    std::vector<std::size_t> left, right;
    for (std::size_t i : rows) (b_.bin(i, static_cast<std::size_t>(best_f)) <= best_cut ? left : right).push_back(i);
    nodes[id].feature = best_f;
    nodes[id].threshold = b_.cuts[best_f][best_cut];
    int l = build(nodes, left, depth + 1);
    int r = build(nodes, right, depth + 1);
    nodes[id].left = l;
    nodes[id].right = r;
    return id;
  }

 private:
  const Binned& b_;
  const std::vector<double>& r_;
  const std::vector<double>& w_;
  const TreeSettings& s_;
};

}  // namespace

void BoostedTrees::fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets,
                       const std::vector<double>& weights, const TreeSettings& settings) {
  if (rows.size() != targets.size() || (!weights.empty() && weights.size() != rows.size()))
    throw Error("boosted trees: rows, targets and weights differ in length");
  trees_.clear();
  learning_rate_ = settings.learning_rate;
  fitted_ = !rows.empty();
  if (rows.empty()) return;
  std::vector<double> w = weights.empty() ? std::vector<double>(rows.size(), 1.0) : weights;
  double sw = 0, swy = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sw += w[i];
    swy += w[i] * targets[i];
  }
  base_ = sw > 0 ? swy / sw : 0;
  std::vector<double> residual(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) residual[i] = targets[i] - base_;
  const Binned binned = bin_features(rows, std::max<std::size_t>(settings.max_bins, 2));
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (std::size_t t = 0; t < settings.trees; ++t) {
    std::vector<Node> nodes;
    std::vector<std::size_t> rows_here = all;
    TreeBuilder(binned, residual, w, settings).build(nodes, rows_here, 0);
    if (nodes.size() == 1 && nodes[0].value == 0) break;  // nothing left to learn
    trees_.push_back(std::move(nodes));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& tree = trees_.back();
      int n = 0;
      while (tree[n].feature >= 0) n = rows[i][tree[n].feature] <= tree[n].threshold ? tree[n].left : tree[n].right;
      residual[i] -= learning_rate_ * tree[n].value;
    }
  }
}

double BoostedTrees::predict(const std::vector<double>& row) const {
  double y = base_;
  for (const auto& tree : trees_) {
    int n = 0;
    while (tree[n].feature >= 0) n = row[tree[n].feature] <= tree[n].threshold ? tree[n].left : tree[n].right;
    y += learning_rate_ * tree[n].value;
  }
  return y;
}

}  // namespace mpgemm::gbt
