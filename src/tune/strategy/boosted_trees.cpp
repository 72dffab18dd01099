#include "tune/strategy/boosted_trees.hpp"

#include <algorithm>
#include <cstdint>

#include "common/error.hpp"

namespace mpgemm::gbt {

namespace {

struct Binned {
  std::vector<std::vector<double>> cuts;         // per feature: ascending cut values
  std::vector<std::vector<std::uint16_t>> bins;  // per feature, per row: index of the first cut >= value
};

Binned bin_features(const std::vector<std::vector<double>>& rows, std::size_t max_bins) {
  const std::size_t features = rows.empty() ? 0 : rows[0].size();
  Binned b;
  b.cuts.resize(features);
  b.bins.resize(features);
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
    b.bins[f].reserve(rows.size());
    for (const auto& r : rows)
      b.bins[f].push_back(static_cast<std::uint16_t>(std::lower_bound(cuts.begin(), cuts.end(), r[f]) - cuts.begin()));
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
    std::vector<double> hw, hr;
    for (std::size_t f = 0; f < b_.cuts.size(); ++f) {
      const std::size_t nb = b_.cuts[f].size();
      if (nb < 2) continue;
      hw.assign(nb, 0);
      hr.assign(nb, 0);
      for (std::size_t i : rows) {
        hw[b_.bins[f][i]] += w_[i];
        hr[b_.bins[f][i]] += w_[i] * r_[i];
      }
      double lw = 0, lr = 0;
      for (std::size_t c = 0; c + 1 < nb; ++c) {
        lw += hw[c];
        lr += hr[c];
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
    for (std::size_t i : rows) (b_.bins[best_f][i] <= best_cut ? left : right).push_back(i);
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
