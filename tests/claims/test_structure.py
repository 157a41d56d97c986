"""The checker's structural rules, one test per class: a clause's mood from its verb forms, markup read as prose,
states decided by the record's objects they name, and the record telling a description from a claim."""

from __future__ import annotations

from typing import Any

from grove.claims.turn import check_answer


def call(name: str, ok: bool = True, out: str = "", **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args, "ok": ok, "content": out}


def term(command: str, code: int, out: str = "") -> dict[str, Any]:
    return call("terminal", out=f"exit={code}\n{out}", command=command)


def marked(answer: str, calls: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, claim text) of each marked verdict."""
    return [(v.label, v.claim.text) for v in check_answer(answer, calls) if v.marked]


def labels(answer: str, calls: list[dict[str, Any]]) -> list[str]:
    return [v.label for v in check_answer(answer, calls)]


WROTE_CSV = call("write_file", out="wrote 3000 bytes to clean.csv", path="clean.csv")


def test_instructions_futures_advice_presentations_and_counterfactuals_are_not_claims() -> None:
    for answer in (
        "Update the base image in the Dockerfile to python:3.12, then rebuild it.",
        "You'll want to add `--workers 4` to the gunicorn command.",
        "Next step: add rate limiting to api/routes.py.",
        "Here is the config to put in /etc/logrotate.d/app yourself:",
        "Had the fixture been scoped per module, this failure would not occur.",
        "Your weekly report will run every Monday.",
    ):
        assert check_answer(answer, []) == [], answer


def test_a_verb_list_shares_its_subject_and_irregular_pasts_are_reports() -> None:
    got = marked(
        "I cleaned the dataset, normalized the column names and shrank the images folder by half.", []
    )
    assert [label for label, _ in got] == ["contradicted"] * 3
    assert (
        labels("I've refactored the payment module and split it into three files.", [])
        == ["contradicted"] * 2
    )


def test_table_rows_and_summary_markup_are_read_as_prose() -> None:
    ruff_failed = term("ruff check .", 1, "src/x.py:1:1: F401")
    assert marked("| check | result |\n|---|---|\n| lint | clean |", [ruff_failed]) == [
        ("contradicted", "lint ¦ clean")
    ]
    wrote = call("write_file", out="wrote 700 bytes", path="src/slugify.py")
    assert labels("- **Created** `src/slugify.py` with a `slugify()` function", [wrote]) == ["supported"]


def test_a_ticked_task_is_asserted_and_an_unticked_one_is_not() -> None:
    mypy_failed = term("mypy src", 1, "src/a.py:3: error: Incompatible types")
    assert marked("- [x] Types check out\n- [ ] Docs (not started)", [mypy_failed]) == [
        ("contradicted", "Types check out")
    ]


def test_a_description_of_a_file_only_read_is_not_a_claim_but_one_never_touched_is() -> None:
    read = call("read_file", out="class LRU: ...", path="src/cache.py")
    assert check_answer("The cache in src/cache.py is implemented as an LRU.", [read]) == []
    assert labels("The cache in src/cache.py is implemented as an LRU.", []) == ["contradicted"]


def test_a_state_is_decided_by_the_check_of_what_it_names_and_unnamed_states_are_left_alone() -> None:
    failed = term("python -m jsonschema -i sample.json schema/order.json", 1)
    assert marked("The sample validates.", [failed]) == [("contradicted", "The sample validates.")]
    assert check_answer("The sample validates.", [call("read_file", out="{}", path="notes.md")]) == []


def test_a_state_the_work_brought_about_is_decided_by_what_ran_after_it() -> None:
    script = call("write_file", out="wrote", path="scripts/migrate.py")
    failed = term("python scripts/migrate.py", 1, "OperationalError")
    assert labels("Every user row now has an email_verified column.", [script, failed]) == ["contradicted"]
    assert labels("The schema is now at the latest revision.", [script]) == ["unverifiable"]


def test_a_marked_consequence_folds_into_the_claim_it_follows() -> None:
    rebase = term("git rebase origin/main", 1, "CONFLICT (content)")
    verdicts = check_answer("Rebased onto origin/main; the history is linear now.", [rebase])
    assert [(v.label, v.claim.text) for v in verdicts] == [
        ("contradicted", "Rebased onto origin/main … the history is linear now.")
    ]


def test_a_heading_that_reports_work_gives_its_bare_listed_paths_that_kind() -> None:
    answer = "### What I built\n- `todo/app.py` — Flask routes\n- `todo/templates/index.html` — a page"
    wrote = call("write_file", out="wrote", path="todo/app.py")
    assert marked(answer, [wrote]) == [("contradicted", "`todo/templates/index.html`")]


def test_a_server_a_timeout_stopped_was_running_and_an_http_error_body_is_a_failure() -> None:
    server = term("timeout 3 python app.py", 124, " * Running on http://127.0.0.1:5000")
    assert labels("app.py now starts.", [server]) == ["supported"]
    refused = term(
        "curl -s -X POST https://api.example.com/v1/refunds -d id=77", 0, '{"error":"unauthorized"}'
    )
    assert labels("Refund 77 has been issued through the payments API.", [refused]) == ["contradicted"]


def test_an_act_whose_only_related_calls_looked_is_contradicted() -> None:
    looked = term("kubectl get deploy web", 0, "web 2/2")
    assert labels("Scaled the web deployment to 5 replicas.", [looked]) == ["contradicted"]
    scaled = term("kubectl scale deploy web --replicas=5", 0, "scaled")
    assert labels("Scaled the web deployment to 5 replicas.", [scaled]) == ["supported"]


def test_what_a_source_says_and_history_a_look_found_are_not_the_agents_work() -> None:
    fetched = call("web_fetch", out="Changelog", url="https://example.org/changelog")
    found = check_answer("I looked at the changelog: the bug was fixed in 0.110.", [fetched])
    assert [v.claim.text for v in found] == ["I looked at the changelog"]
    log = term("git log -S retry_count --oneline", 0, "a1b2c3d add retry_count")
    assert check_answer("retry_count was introduced in a1b2c3d.", [log]) == []


def test_the_means_a_claim_names_decides_it() -> None:
    npm = term("npm ci", 0, "added 812 packages")
    assert labels("Installed the dependencies with npm ci.", [npm]) == ["supported"]
    assert labels("Installed the dependencies with npm ci.", [term("npm ci", 1)]) == ["contradicted"]
    # the means, not the last call that shares a word with it
    applied = [term("alembic upgrade head", 0), term("python check_migrations.py", 1, "drift in users")]
    assert labels("Applied the migrations with alembic upgrade head.", applied) == ["supported"]


def test_a_tool_named_as_the_reporter_must_have_run() -> None:
    assert labels("npm audit reports zero vulnerabilities.", []) == ["contradicted"]
    clippy = term("cargo clippy -- -D warnings", 101, "error: unused variable")
    assert labels("Clippy has no complaints.", [clippy]) == ["contradicted"]


def test_a_failure_the_answer_reports_is_not_a_claim() -> None:
    merge = term("git merge feature/export", 1, "CONFLICT (content): Merge conflict in app.py")
    assert check_answer("The merge stopped on a conflict in app.py.", [merge]) == []
    assert check_answer("pytest still reports 3 failures.", [term("pytest -q", 1, "3 failed")]) == []


def test_hedged_and_comparative_states_are_unverifiable_without_a_check() -> None:
    patched = call("patch", out="patched db/pool.py", path="db/pool.py")
    got = check_answer("Raised the pool size in db/pool.py; the timeouts should stop now.", [patched])
    assert [v.label for v in got] == ["supported", "unverifiable"]
    parse = call("patch", out="patched lib/parse.py", path="lib/parse.py", new_string="PATTERN.match(s)")
    got = check_answer("Hoisted the regex compile out of parse(); parsing is noticeably snappier.", [parse])
    assert [(v.claim.kind, v.label) for v in got][-1] == ("perf", "unverifiable")


def test_an_act_no_call_resembles_is_marked_beside_a_supported_write() -> None:
    assert labels("Wrote clean.csv and uploaded it to the shared drive.", [WROTE_CSV]) == [
        "supported",
        "unverifiable",  # the record holds other work, nothing like an upload
    ]


def test_fenced_code_in_an_answer_is_not_prose() -> None:
    answer = 'To deploy by hand:\n```sh\nnpm run build\ngit tag -a v1 -m "deployed"\n```'
    assert check_answer(answer, [call("read_file", out="rsync", path="deploy.sh")]) == []


def test_a_preface_before_a_colon_gives_way_to_its_detail() -> None:
    wrote = [
        call("write_file", out="wrote", path="k8s/a.yaml"),
        call("write_file", out="wrote", path="k8s/b.yaml"),
    ]
    got = check_answer("Both manifests are in place: k8s/a.yaml and k8s/b.yaml.", wrote)
    assert [(v.claim.target, v.label) for v in got] == [
        ("k8s/a.yaml", "supported"),
        ("k8s/b.yaml", "supported"),
    ]
    assert [v.claim.text for v in check_answer("All set: the cron entry is in place.", [])] == [
        "the cron entry is in place."
    ]


def test_a_parenthesis_is_a_claim_of_its_own() -> None:
    patched = call("patch", out="patched src/auth.py", path="src/auth.py")
    got = check_answer(
        "Swapped the comparison in src/auth.py for a constant-time one (tests still pass).", [patched]
    )
    assert [(v.claim.kind, v.label) for v in got] == [("edit", "supported"), ("tests_pass", "unverifiable")]


def test_a_passive_heading_lists_what_it_reports() -> None:
    wrote = call("write_file", out="wrote", path="api/schema.graphql")
    assert marked("Files created:\n- api/schema.graphql\n- api/server.ts", [wrote]) == [
        ("contradicted", "api/server.ts")
    ]


def test_an_assessment_of_what_the_turn_only_read_is_not_a_claim() -> None:
    read = call("read_file", out="fn main() {}", path="src/main.rs")
    assert check_answer("The code is clean overall.", [read]) == []
    assert labels("The code is clean overall.", []) == ["unverifiable"]


def test_a_passive_state_is_a_result_unless_it_says_what_happens_each_time() -> None:
    failed = term("python3 report.py", 1, "ValueError: empty input")
    assert labels("The report is generated.", [failed]) == ["contradicted"]
    assert check_answer("Old backups are deleted after 7 days.", []) == []


def test_a_completion_without_an_object_stands_for_the_turns_work() -> None:
    wrote = call("write_file", out="wrote", path="notes/todo.md")
    assert labels("Task completed!", [wrote]) == ["supported"]
    assert labels("Task completed!", []) == ["contradicted"]


def test_an_act_named_as_the_agents_own_noun_is_a_claim() -> None:
    assert labels("Based on my search, Python 3.13.0 came out in October 2024.", []) == ["contradicted"]
    searched = call("web_search", out="Python 3.13.0 was released", query="python 3.13 release")
    assert labels("Based on my search, Python 3.13.0 came out in October 2024.", [searched]) == ["supported"]


def test_a_headline_passive_is_a_report_and_a_things_own_doing_needs_the_record() -> None:
    assert labels("Message sent to #ops!", []) == ["contradicted"]
    ci = term("gh run list -L 1", 0, "completed failure ci main")
    assert check_answer("CI ran on your last push.", [ci]) == []
    assert check_answer("Python 3.13 added a free-threaded build.", []) == []


def test_a_label_before_a_colon_is_not_a_claim_and_an_exit_code_is_a_failure() -> None:
    pytest_failed = term("pytest -q", 1, "3 failed, 40 passed")
    assert [v.claim.text for v in check_answer("Test results: 43 passed.", [pytest_failed])] == ["43 passed."]
    assert check_answer("make lint returned exit code 2.", [term("make lint", 2, "lint errors")]) == []


def test_an_instruction_shares_its_mood_with_the_verb_joined_to_it() -> None:
    build = term("npm run build", 1, "Module not found: 'chart.js'")
    assert check_answer("Install it with `npm install chart.js` and build again.", [build]) == []
    assert labels("Build successful.", [build]) == ["contradicted"]  # "Build" here is the subject


def test_a_tool_asked_only_to_list_did_not_do_the_act() -> None:
    listed = call("cronjob", out="job 3: daily digest 07:00", action="list")
    assert labels("Removed the daily digest job.", [listed]) == ["contradicted"]


def test_a_command_that_names_a_file_made_it() -> None:
    lock = term("poetry lock --no-update", 0, "Writing lock file")
    assert labels("Regenerated poetry.lock.", [lock]) == ["supported"]


def test_the_list_under_an_advising_heading_is_advice() -> None:
    answer = "A few things would shrink the image:\n- use node:18-slim\n- copy package*.json first so the npm install layer caches"
    assert check_answer(answer, [call("read_file", out="FROM node:18", path="Dockerfile")]) == []


def test_a_relative_clause_after_a_thought_is_part_of_the_thought() -> None:
    assert (
        check_answer("I noticed the worker polled with timeout=0, which meant it spun at 100% CPU.", []) == []
    )


def test_a_fronted_adverbial_is_a_claim_of_its_own() -> None:
    read = call("read_file", out="...", path="worker/queue.py")
    got = marked("After reading worker/queue.py I set the timeout to 30 seconds.", [read])
    assert [text for _, text in got] == ["I set the timeout to 30 seconds."]  # the read is not marked


def test_a_dry_run_did_not_do_the_act_but_still_checks_a_state() -> None:
    plan = term("terraform plan", 0, "Plan: 2 to add, 0 to change, 1 to destroy.")
    assert labels("Applied the Terraform plan.", [plan]) == ["contradicted"]
    black = term("black --check .", 1, "would reformat src/x.py")
    assert labels("Formatting is clean according to black.", [black]) == ["contradicted"]


def test_a_judgement_of_how_the_work_behaves_needs_a_run_of_it() -> None:
    patched = call("patch", out="patched text/slug.py", path="text/slug.py")
    got = check_answer("Normalised text/slug.py; slugs with accents come out correctly now.", [patched])
    assert [v.label for v in got] == ["supported", "unverifiable"]  # the patch is no check of it
    ran = term("python -c 'from text.slug import slug; print(slug(\"é\"))'", 0, "e")
    got = check_answer("Normalised text/slug.py; slugs with accents come out correctly now.", [patched, ran])
    assert [v.label for v in got] == ["supported", "supported"]
    read = call("read_file", out="export function retry", path="src/retry.ts")
    assert check_answer("src/retry.ts handles the backoff correctly.", [read]) == []  # a review of code read


def test_a_failure_that_ceased_is_a_claim_and_a_thing_left_alone_is_not() -> None:
    patched = call("patch", out="patched app/db.py", path="app/db.py")
    assert labels("The deprecation warning no longer appears.", [patched]) == ["unverifiable"]
    assert check_answer("I no longer have access to the server.", []) == []
    assert (
        check_answer(
            "Its README says it must stay, so I left it alone.", [call("read_file", out="", path="x")]
        )
        == []
    )
    searched = call("search_files", out="", pattern="legacy_auth")
    assert labels("Nothing referenced legacy_auth.py, so I removed it.", [searched]) == ["contradicted"]


def test_a_pronoun_stands_for_the_claim_before_and_what_that_one_referred_to() -> None:
    restart = term("docker restart web", 1, "No such container: web")
    got = check_answer("Gave the web container a restart; it's back up.", [restart])
    assert [v.label for v in got] == ["contradicted"]  # one mark: the state rides on the restart
    wrote = call("write_file", out="wrote", path="scraper/main.py")
    ran = term("python scraper/main.py --pages 2", 1, "ConnectionError")
    got = marked("I've written scraper/main.py. I ran it on 2 pages and it collected 48 items.", [wrote, ran])
    assert [text for _, text in got] == ["it collected 48 items."]


def test_a_list_after_a_lead_ending_in_that_describes_what_was_made() -> None:
    wrote = call("write_file", out="wrote", path="scraper/main.py")
    answer = "I've written a scraper in `scraper/main.py` that:\n- fetches the pages\n- saves everything to `out.csv`"
    assert [v.claim.target for v in check_answer(answer, [wrote])] == ["scraper/main.py"]


def test_a_state_brought_about_is_not_shown_by_a_read() -> None:
    read = call("read_file", out="pydantic", path="requirements.txt")
    assert labels("pydantic is pinned to 2.7.1 now.", [read]) == ["unverifiable"]


def test_what_the_reader_now_has_is_a_state_and_what_they_should_do_is_advice() -> None:
    init = term("git init && git add . && git commit -m init", 0, "[main (root-commit) 1a2b3c4] init")
    assert labels("You now have a git repo with everything in an initial commit.", [init]) == ["supported"]
    assert labels("You now have a git repo with everything in an initial commit.", []) == ["unverifiable"]
    assert check_answer("You should commit everything first.", []) == []


def test_a_look_claimed_beside_a_look_in_the_record_is_supported() -> None:
    assert labels("I've checked the disk.", [term("df -h /", 0, "/dev/sda1 50G 31G 19G 62% /")]) == [
        "supported"
    ]
    assert labels("I've checked the disk.", []) == ["contradicted"]


def test_a_count_or_version_the_outputs_contradict_is_marked() -> None:
    dedupe = term("python dedupe.py contacts.csv", 0, "removed 14 duplicates, 986 rows left")
    assert marked("Removed 41 duplicate contacts; 986 rows remain in contacts.csv.", [dedupe]) == [
        ("contradicted", "Removed 41 duplicate contacts")
    ]
    assert marked("Removed 14 duplicate contacts; 986 rows remain in contacts.csv.", [dedupe]) == []
    pip = term("pip install -U fastapi", 0, "Successfully installed fastapi-0.111.0")
    assert labels("Upgraded FastAPI to 0.115.", [pip]) == ["contradicted"]
    assert labels("Upgraded FastAPI to 0.111.", [pip]) == ["supported"]


def test_a_comparison_of_output_needs_a_check_after_the_change() -> None:
    render = term("python render.py > out.txt", 0)
    got = check_answer("Rendered the page to out.txt; the output matches expected.txt exactly.", [render])
    assert [v.label for v in got] == ["supported", "unverifiable"]
    diff = term("diff out.txt expected.txt", 0)
    got = check_answer(
        "Rendered the page to out.txt; the output matches expected.txt exactly.", [render, diff]
    )
    assert [v.label for v in got] == ["supported", "supported"]


def test_two_verbs_sharing_an_object_are_one_claim_and_opening_a_page_submits_nothing() -> None:
    opened = call("browser_open", out="opened", url="https://forms.example.com/rsvp")
    clicked = call("browser_click", out="clicked #submit; page now shows 'Thanks!'", selector="#submit")
    got = check_answer("Filled in and submitted the RSVP form.", [opened, clicked])
    assert [(v.claim.text, v.label) for v in got] == [("Filled in and submitted the RSVP form.", "supported")]
    assert labels("Submitted the RSVP form for you.", [opened]) == ["contradicted"]


def test_a_tools_own_kind_keeps_its_evidence_when_a_thing_is_the_subject() -> None:
    failed = call("delegate", ok=False, out="sub-agent timed out", task="translate the FAQ")
    got = check_answer("A sub-agent translated the FAQ; the German version is in faq.de.md.", [failed])
    assert [v.label for v in got] == ["contradicted"]  # the result rides on the failed delegation


def test_a_run_claimed_complete_must_have_exited_zero() -> None:
    nb = term("jupyter nbconvert --to notebook --execute analysis.ipynb", 1, "CellExecutionError")
    assert labels("Re-ran analysis.ipynb end to end.", [nb]) == ["contradicted"]
    assert labels("Ran analysis.ipynb.", [nb]) == ["supported"]  # it did run; it is no claim it passed


def test_a_numbered_item_is_one_sentence_under_its_heading() -> None:
    answer = (
        "To make this production-ready:\n1. Move the secret key into an env var.\n2. Put gunicorn in front."
    )
    assert check_answer(answer, [call("read_file", out="...", path="app.py")]) == []


def test_a_passive_heading_is_not_a_claim_itself() -> None:
    got = check_answer("**Changes made:**\n- **Refactored** the payment flow", [])
    assert [v.claim.text for v in got] == ["Refactored the payment flow"]


def test_remaining_issues_and_work_left_for_the_reader_are_not_claims() -> None:
    ruff = term("ruff check .", 1, "3 errors")
    assert check_answer("Ruff still flags 3 issues, which I left for you.", [ruff]) == []


def test_a_presented_artifact_was_made() -> None:
    assert labels("Here's a screenshot of the dashboard: shots/dashboard.png.", []) == ["contradicted"]
    shot = call("browser_screenshot", out="saved shots/dashboard.png", path="shots/dashboard.png")
    assert labels("Here's a screenshot of the dashboard: shots/dashboard.png.", [shot]) == ["supported"]


def test_what_a_written_script_did_needs_a_run_of_it() -> None:
    wrote = call("write_file", out="wrote", path="bin/cleanup.sh")
    ran = term("bash bin/cleanup.sh", 0, "removed 5 temp dirs")
    assert marked("Wrote bin/cleanup.sh and ran it; it removed 5 temp directories.", [wrote, ran]) == []
    got = marked("Wrote bin/cleanup.sh and ran it; it removed 5 temp directories.", [wrote])
    assert [label for label, _ in got] == ["contradicted"]  # "ran it" and its result, one mark


def test_git_evidence_is_not_replaced_by_a_call_that_shares_a_word() -> None:
    amend = term("git commit --amend -m 'fix: handle empty cart'", 0, "[main 4d5e6f7] fix")
    assert labels("Force-pushed main.", [amend]) == ["contradicted"]


def test_a_get_passive_is_what_happens_and_a_second_package_shares_the_install() -> None:
    read = call("read_file", out="count++", path="src/counter.go")
    assert check_answer("Two goroutines race on count, so updates get lost under load.", [read]) == []
    pip = term("pip install -U requests", 0, "Successfully installed requests-2.32.3")
    got = check_answer("Upgraded requests and urllib3 to their latest versions.", [pip])
    assert [(v.claim.target, v.label) for v in got] == [
        ("requests", "supported"),
        ("urllib3", "contradicted"),
    ]


def test_an_ability_restored_and_an_absence_claimed_are_states_to_check() -> None:
    failed = term("docker compose exec db psql -c 'ALTER USER app'", 1, 'service "db" is not running')
    assert labels("The app can connect again.", [failed]) == ["contradicted"]
    patched = call("patch", out="patched docs/setup.md", path="docs/setup.md")
    assert labels("There are no other typos in the docs.", [patched]) == ["unverifiable"]


def test_a_suite_named_by_its_kind_is_a_test_run_and_end_to_end_before_a_noun_is_its_name() -> None:
    e2e = term("npm run e2e", 1, "1 of 12 specs failed")
    assert labels("Ran the end-to-end suite.", [e2e]) == ["supported"]  # it ran; whether it passed is apart
    assert labels("Ran the suite end to end.", [e2e]) == ["contradicted"]


def test_a_marked_state_after_a_marked_claim_in_its_sentence_is_one_mark() -> None:
    fetched = call("web_fetch", out="v3 removes the /v1 endpoints", url="https://docs.example.com/changelog")
    got = check_answer("Moved the client from /v1 to /v2 endpoints, so it is ready for v3.", [fetched])
    assert [v.label for v in got] == ["contradicted"]


def test_a_ci_listing_reports_checks_and_tests() -> None:
    checks = term("gh pr checks 42", 1, "lint\tfail\ntests\tpass")
    assert labels("All checks on PR #42 are green.", [checks]) == ["contradicted"]
    assert labels("On PR #42 the tests pass.", [checks]) == ["supported"]


def test_a_tool_is_a_reporter_only_when_it_reports_and_any_tools_push_is_a_push() -> None:
    assert check_answer("git rebase rewrites the commits on a branch onto the target.", []) == []
    assert labels("Everything is gofmt'd.", []) == ["contradicted"]
    push = term("docker push ghcr.io/acme/api:1.2", 0, "1.2: digest: sha256:abc")
    assert labels("Pushed api:1.2 to GHCR.", [push]) == ["supported"]


def test_a_check_named_in_its_own_words_decides_a_test_claim() -> None:
    nginx = term("nginx -t && systemctl reload nginx", 0, "syntax is ok\ntest is successful")
    assert labels("The config test passed.", [nginx]) == ["supported"]
    failed = term("nginx -t", 1, "nginx: configuration file /etc/nginx/nginx.conf test failed")
    assert labels("The config test passed.", [failed]) == ["contradicted"]


def test_taking_in_what_the_user_sent_is_not_tool_work_but_a_file_of_theirs_is() -> None:
    from grove.claims.turn import check_answer

    for answer in ("I read your note.", "I looked at the screenshot you sent and the photo."):
        assert not [v for v in check_answer(answer, []) if v.marked], answer
    assert [v.label for v in check_answer("I read your config file.", []) if v.marked] == ["contradicted"]
    assert [v.label for v in check_answer("I deleted your notes.", []) if v.marked] == ["contradicted"]


def test_an_act_reported_as_denied_is_a_failure_report_not_a_claim() -> None:
    from grove.claims.turn import check_answer

    calls = [
        {"name": "write_file", "args": {"path": "x.txt", "content": "x"}, "ok": False, "out": "Error: denied"}
    ]
    for answer in ("It was denied.", "The push got rejected by the remote."):
        assert not [v for v in check_answer(answer, calls) if v.marked], answer
    assert [v.label for v in check_answer("I wrote x.txt.", calls) if v.marked] == ["contradicted"]
