"""The cases of benchmarks/local_tools.py: single decisions over grove's default toolsets (which tool, which
arguments, or no tool) and multi-step tasks (read -> compute -> write) judged by the files they leave."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Files in the workspace every single-decision prompt sees (only their names matter: nothing is executed).
FILES = {
    "notes.txt": "buy milk\ncall Ana\n",
    "README.md": "# demo\nA small project.\n",
    "app.py": "def main():\n    print('hi')\n",
    "data.csv": "name,qty\napples,3\npears,5\n",
    "config.ini": "[server]\nport = 8080\n",
}


def has(key: str, *words: str) -> Callable[[dict[str, Any]], bool]:
    """The argument `key` is a string containing every word (case-insensitive)."""

    def check(args: dict[str, Any]) -> bool:
        value = args.get(key)
        return isinstance(value, str) and all(w.lower() in value.lower() for w in words)

    return check


def path_is(name: str) -> Callable[[dict[str, Any]], bool]:
    def check(args: dict[str, Any]) -> bool:
        path = args.get("path")
        return isinstance(path, str) and path.rstrip("/").split("/")[-1] == name

    return check


def both(*checks: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda args: all(c(args) for c in checks)


def todo_items(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda args: isinstance(args.get("items"), list) and len(args["items"]) >= n


@dataclass(frozen=True)
class Decision:
    prompt: str
    tool: str | None  # None: the right move is to answer without a tool
    args_ok: Callable[[dict[str, Any]], bool] = field(default=lambda args: True)


DECISIONS: list[Decision] = [
    # read_file
    Decision("Read notes.txt", "read_file", path_is("notes.txt")),
    Decision("Show me what is in README.md", "read_file", path_is("README.md")),
    Decision("What does app.py contain?", "read_file", path_is("app.py")),
    Decision("Open data.csv and tell me how many rows it has.", "read_file", path_is("data.csv")),
    Decision("Which port is set in config.ini?", "read_file", path_is("config.ini")),
    Decision("Summarize the file notes.txt for me.", "read_file", path_is("notes.txt")),
    Decision("Print the first 2 lines of app.py.", "read_file", path_is("app.py")),
    Decision("Is there a TODO in app.py? Look at the file.", "read_file", path_is("app.py")),
    # write_file
    Decision(
        "Create a file hello.txt containing the text: hello world",
        "write_file",
        both(path_is("hello.txt"), has("content", "hello world")),
    ),
    Decision(
        "Write a Python script add.py that prints 2+3.",
        "write_file",
        both(path_is("add.py"), has("content", "print")),
    ),
    Decision(
        "Save the word 'banana' into fruit.txt.",
        "write_file",
        both(path_is("fruit.txt"), has("content", "banana")),
    ),
    Decision(
        "Make a new file todo.md with a heading '# Todo'.",
        "write_file",
        both(path_is("todo.md"), has("content", "# Todo")),
    ),
    Decision(
        "Create .gitignore that ignores __pycache__.",
        "write_file",
        both(path_is(".gitignore"), has("content", "__pycache__")),
    ),
    Decision(
        "Put the number 42 in answer.txt.",
        "write_file",
        both(path_is("answer.txt"), has("content", "42")),
    ),
    # patch
    Decision(
        "In app.py, replace print('hi') with print('hello').",
        "patch",
        both(path_is("app.py"), has("old_string", "print('hi')"), has("new_string", "hello")),
    ),
    Decision(
        "In config.ini change the port 8080 to 9090 (use patch).",
        "patch",
        both(path_is("config.ini"), has("old_string", "8080"), has("new_string", "9090")),
    ),
    Decision(
        "Edit README.md: replace 'A small project.' with 'A tiny project.'",
        "patch",
        both(path_is("README.md"), has("old_string", "small"), has("new_string", "tiny")),
    ),
    Decision(
        "In notes.txt, change 'buy milk' to 'buy bread'.",
        "patch",
        both(path_is("notes.txt"), has("old_string", "buy milk"), has("new_string", "buy bread")),
    ),
    # search_files
    Decision("Search the files for the word 'port'.", "search_files", has("pattern", "port")),
    Decision("Find every file that mentions 'milk'.", "search_files", has("pattern", "milk")),
    Decision("Which files contain 'def main'?", "search_files", has("pattern", "def main")),
    Decision("Grep the project for 'apples'.", "search_files", has("pattern", "apples")),
    Decision("Search all files for the text TODO.", "search_files", has("pattern", "TODO")),
    # todo
    Decision(
        "Make a task list with three items: read docs, write tests, ship it.",
        "todo",
        todo_items(3),
    ),
    Decision("Track these steps in your todo list: plan, build.", "todo", todo_items(2)),
    # skills
    Decision("Search your skills for one about CSV files.", "skills_search", has("query", "csv")),
    Decision("Look for a skill that helps with git rebase.", "skills_search", has("query", "rebase")),
    # memory
    Decision(
        "Remember for future sessions that I prefer tabs over spaces.",
        "memory",
        has("content", "tabs"),
    ),
    Decision(
        "Save to your memory: the staging server is staging.example.com.",
        "memory",
        has("content", "staging.example.com"),
    ),
    # session_search
    Decision(
        "Search our past sessions for when we talked about docker.",
        "session_search",
        has("query", "docker"),
    ),
    Decision(
        "Find the earlier session where we fixed the login bug.",
        "session_search",
        has("query", "login"),
    ),
    # no tool
    Decision("What is the capital of France?", None),
    Decision("What is 12 times 12?", None),
    Decision("Say hello.", None),
    Decision("Explain in one sentence what a Python list is.", None),
    Decision("Thanks, that is all!", None),
    Decision("Translate 'good morning' into Spanish.", None),
    Decision("What does HTTP stand for?", None),
    Decision("Give me a synonym for 'fast'.", None),
    Decision("Is 17 a prime number?", None),
    Decision("Write a haiku about autumn (just reply with it).", None),
]


@dataclass(frozen=True)
class Task:
    prompt: str
    files: dict[str, str]
    output: str  # the file the task must write
    ok: Callable[[str], bool]  # judges that file's text
    held_out: bool = False  # written after the local prompt was frozen: never tuned on


def equals(expected: str) -> Callable[[str], bool]:
    return lambda text: text.strip().lower() == expected.lower()


def lines_are(expected: list[str]) -> Callable[[str], bool]:
    return lambda text: [x.strip() for x in text.strip().splitlines() if x.strip()] == expected


TASKS: list[Task] = [
    Task(
        "Read numbers.txt, add up the numbers, and write the total to total.txt.",
        {"numbers.txt": "4\n9\n12\n"},
        "total.txt",
        equals("25"),
    ),
    Task(
        "Read names.txt and write the names sorted alphabetically, one per line, to sorted.txt.",
        {"names.txt": "Zoe\nAdam\nMia\n"},
        "sorted.txt",
        lines_are(["Adam", "Mia", "Zoe"]),
    ),
    Task(
        "Read greeting.txt and write its text in upper case to upper.txt.",
        {"greeting.txt": "hello world\n"},
        "upper.txt",
        lambda text: text.strip() == "HELLO WORLD",
    ),
    Task(
        "Read config.ini and write just the port number to port.txt.",
        {"config.ini": "[server]\nhost = example.org\nport = 8443\n"},
        "port.txt",
        equals("8443"),
    ),
    Task(
        "Read temps.txt and write the highest temperature to max.txt.",
        {"temps.txt": "12\n31\n7\n19\n"},
        "max.txt",
        equals("31"),
    ),
    Task(
        "Read list.txt and write its lines in reverse order to reversed.txt.",
        {"list.txt": "one\ntwo\nthree\n"},
        "reversed.txt",
        lines_are(["three", "two", "one"]),
    ),
    Task(
        "Read words.txt and write the longest word to longest.txt.",
        {"words.txt": "cat\nelephant\ndog\n"},
        "longest.txt",
        equals("elephant"),
    ),
    Task(
        "Read version.txt (a version like 1.4.2), and write the next patch version to next.txt.",
        {"version.txt": "1.4.2\n"},
        "next.txt",
        equals("1.4.3"),
    ),
    Task(
        "Read items.csv and write the number of data rows (without the header) to count.txt.",
        {"items.csv": "name,qty\napples,3\npears,5\nplums,2\n"},
        "count.txt",
        equals("3"),
    ),
    Task(
        "Read prices.txt and write the name of the most expensive item to top.txt.",
        {"prices.txt": "tea 3\ncoffee 5\nwater 1\n"},
        "top.txt",
        equals("coffee"),
    ),
    Task(
        "Read name.txt and write 'Hello, <name>!' with that name to hello.txt.",
        {"name.txt": "Ana\n"},
        "hello.txt",
        equals("hello, ana!"),
    ),
    Task(
        "Read scores.txt and write how many scores are above 50 to above.txt.",
        {"scores.txt": "40\n75\n51\n90\n12\n"},
        "above.txt",
        equals("3"),
    ),
    # Held out: added once the local prompt and tool guidance were frozen (session 24); reported apart as well.
    Task(
        "Read email.txt and write only the domain of the email address to domain.txt.",
        {"email.txt": "ana.lopez@mailbox.example.net\n"},
        "domain.txt",
        equals("mailbox.example.net"),
        held_out=True,
    ),
    Task(
        "Read order.json and write the customer's name to customer.txt.",
        {"order.json": '{"id": 7, "customer": "Bo Lee", "total": 12.5}\n'},
        "customer.txt",
        equals("bo lee"),
        held_out=True,
    ),
    Task(
        "Read colors.txt and write all its words on one line, separated by commas, to joined.txt.",
        {"colors.txt": "red\ngreen\nblue\n"},
        "joined.txt",
        lambda text: text.strip().replace(" ", "") == "red,green,blue",
        held_out=True,
    ),
    Task(
        "Read ages.txt (a name and an age per line) and write the name of the youngest person to youngest.txt.",
        {"ages.txt": "Ana 34\nBen 19\nCy 52\n"},
        "youngest.txt",
        equals("ben"),
        held_out=True,
    ),
    Task(
        "Read date.txt (a date like 2024-03-17) and write just its year to year.txt.",
        {"date.txt": "1998-11-02\n"},
        "year.txt",
        equals("1998"),
        held_out=True,
    ),
    Task(
        "Read a.txt and b.txt, then write a.txt's text followed by b.txt's text, one per line, to both.txt.",
        {"a.txt": "alpha\n", "b.txt": "beta\n"},
        "both.txt",
        lines_are(["alpha", "beta"]),
        held_out=True,
    ),
]
