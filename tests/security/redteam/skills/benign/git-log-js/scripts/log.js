const { execFileSync } = require("child_process");
const out = execFileSync("git", ["log", "--oneline", "-20"], { encoding: "utf8" });
console.log(out.split("\n").length, "commits");
