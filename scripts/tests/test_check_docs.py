"""check_docs.py's layer check on small planted trees: it passes a tree whose includes point down
and names the file and line of an include that runs up, to a folder or to a public header."""
import importlib.util
import pathlib
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # the source tree stays as checked out
SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "check_docs.py"
spec = importlib.util.spec_from_file_location("check_docs", SCRIPT)
check_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_docs)

DIAGRAM = """# Architecture

## Layers

```
layer 2   top/           tev_top                          -> low; <tevsuite/calls.hpp>
          <tevsuite/calls.hpp>  the public calls, defined in top/ -> <tevsuite/types.hpp>
layer 1   low/           tev_low                          -> <tevsuite/types.hpp>
layer 0   <tevsuite/types.hpp>  the public vocabulary      -> standard headers
```
"""


class LayerCheck(unittest.TestCase):
    def tree(self, files: dict[str, str], diagram: str = DIAGRAM) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            sources = {
                "docs/architecture.md": diagram,
                "include/tevsuite/types.hpp": "#pragma once\n#include <cstdint>\n",
                "include/tevsuite/calls.hpp": "#pragma once\n#include <tevsuite/types.hpp>\n",
                "low/low.hpp": "#pragma once\n#include <tevsuite/types.hpp>\n",
                "top/top.cpp": '#include <tevsuite/calls.hpp>\n#include "low/low.hpp"\n',
            }
            for rel, text in {**sources, **files}.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            return check_docs.check_architecture(root)

    def test_includes_that_point_down_pass(self):
        self.assertEqual(self.tree({}), [])

    def test_an_include_of_a_higher_folder_is_named_by_file_and_line(self):
        problems = self.tree({"low/low.cpp": '#include "low/low.hpp"\n\n#include "top/top.hpp"\n'})
        self.assertEqual(problems, ["low/low.cpp:3: includes top (layer 2) from low (layer 1): "
                                    "an arrow that runs up"])

    def test_an_include_of_a_higher_public_header_runs_up(self):
        problems = self.tree({"low/low.hpp": "#pragma once\n#include <tevsuite/calls.hpp>\n"})
        self.assertEqual(problems, ["low/low.hpp:2: includes <tevsuite/calls.hpp> (layer 2) from "
                                    "low (layer 1): an arrow that runs up"])

    def test_an_upward_arrow_of_the_diagram_fails(self):
        diagram = DIAGRAM.replace("-> <tevsuite/types.hpp>\nlayer 0",
                                  "-> <tevsuite/types.hpp>, top\nlayer 0")
        self.assertEqual(self.tree({}, diagram), [
            "docs/architecture.md: the arrow low -> top runs up, from layer 1 to layer 2"])

    def test_a_sideways_include_the_diagram_does_not_lead_to_fails(self):
        diagram = DIAGRAM.replace("layer 1   low/", "layer 1   side/         tev_side"
                                  "                         -> <tevsuite/types.hpp>\n"
                                  "          low/")
        problems = self.tree({"side/side.hpp": '#pragma once\n#include "low/low.hpp"\n'}, diagram)
        self.assertEqual(problems, ["side/side.hpp:2: includes low, which the layer diagram does "
                                    "not let side reach"])


if __name__ == "__main__":
    unittest.main()
