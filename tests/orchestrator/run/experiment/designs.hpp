#pragma once
// The experiment design the parse tests and the matrix tests share: 3 expose x 2 policy x
// 2 thread levels x 2 nohz levels (one of them boolean) over two benchmarks, dies+unpinned
// excluded, a flat baseline and adaptive repetitions.
namespace topolab::experiment {

inline constexpr const char* kCcxDesign = R"(
name = "ccx-exposure"
layout = "../layouts/two.toml"
repetitions = 5
seed = 7
backend = "guest"
[factors]
expose = ["flat", "sockets", "dies"]
policy = ["l3-aligned", "unpinned"]
"param.sqrt.threads" = [1, 2]
"cmdline.nohz" = ["off", true]
[[benchmark]]
name = "sqrt"
params = { threads = 4, n = 1000 }
[[benchmark]]
name = "c2c-latency"
[[exclude]]
expose = "dies"
policy = "unpinned"
[baseline]
expose = "flat"
[adaptive]
cv_threshold = 0.1
max_repetitions = 9
)";

}  // namespace topolab::experiment
