#pragma once
// theorem1's results as one JSON document, which render_report turns into report.md / report.html
// with figures.
#include <nlohmann/json.hpp>

#include "experiments/theorem1.hpp"

namespace tev {

nlohmann::json theorem1_json(const Theorem1Results& results);

}  // namespace tev
