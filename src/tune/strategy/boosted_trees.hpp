#pragma once
// Small gradient-boosted regression trees (squared loss) for the model strategy's surrogate: a few dozen shallow
// trees over a few hundred rows of a few dozen numeric features. Split points come from each feature's sorted
// distinct values (at most max_bins of them, by quantile), so a split search is one histogram pass per node.
// Plain C++, deterministic: the same data gives the same trees (ties go to the first feature and the lowest cut).
#include <cstddef>
#include <vector>

namespace mpgemm::gbt {

struct TreeSettings {
  std::size_t trees = 60;        // boosting rounds
  std::size_t depth = 3;         // levels of splits per tree
  double learning_rate = 0.15;   // shrinkage of each tree's contribution
  double min_leaf_weight = 1.0;  // the least total sample weight on each side of a split
  double l2 = 0.5;               // added to a leaf's weight when averaging its residuals (shrinks small leaves)
  std::size_t max_bins = 32;     // the most cut points per feature
};

class BoostedTrees {
 public:
  // rows[i] has one value per feature (all rows the same length); weights may be empty (all 1).
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets,
           const std::vector<double>& weights, const TreeSettings& settings);
  double predict(const std::vector<double>& row) const;
  bool fitted() const { return fitted_; }

 private:
  struct Node {
    int feature = -1;      // -1: a leaf
    double threshold = 0;  // row[feature] <= threshold goes left
    int left = -1, right = -1;
    double value = 0;  // a leaf's output
  };
  std::vector<std::vector<Node>> trees_;
  double base_ = 0;
  double learning_rate_ = 0;
  bool fitted_ = false;
};

}  // namespace mpgemm::gbt
