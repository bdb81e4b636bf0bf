#pragma once
// theorem1's results as one JSON document, which render_report turns into report.md / report.html
// with figures.
#include <nlohmann/json.hpp>

#include "experiments/theorem1.hpp"

namespace tev::reports {

nlohmann::json theorem1_json(const experiments::Theorem1Results& results);

}  // namespace tev::reports
