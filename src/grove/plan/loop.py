"""Plan then act (Goal, Environment, Plan, Act): perceive, plan under the `submit_plan` schema, act one step with
the agent's tools, and re-plan, until a plan says done or the round budget runs out.

Every plan and step is shown through the agent's events and stored in the session as ordinary messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from grove.agent.loop import Agent, ToolCallRecord, TurnResult
from grove.llm.types import Usage
from grove.plan.environment import Environment, perceive
from grove.plan.steps import PLAN_TOOL, Plan, PlanError, PlanStep, parse_plan, plan_schema
from grove.tools.registry import ToolRegistry

MAX_ROUNDS = 12
PLAN_ATTEMPTS = 3
STEP_PROMPT = (
    "[grove act] Step {n} of the plan: {step}\n"
    "Do this step only, with your tools (skill_code_create for write_skill, skill_run for call_skill, "
    "write_file for write_result), then say in one or two sentences what came out."
)


@dataclass
class Round:
    number: int
    plan: Plan
    step: PlanStep
    outcome: str = ""


@dataclass
class PlanRun:
    goal: str
    answer: str = ""
    done: bool = False
    rounds: list[Round] = field(default_factory=list)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    interrupted: bool = False


def with_code_skills(tools: ToolRegistry) -> ToolRegistry:
    """`tools` plus the code_skills toolset, when it is not there already."""
    if tools.get("skill_run") is not None:
        return tools
    from grove.tools import code_skills

    return ToolRegistry(
        [*(t for n in tools.names() if (t := tools.get(n)) is not None), *code_skills.tools()]
    )


class PlanAndAct:
    """Drives an Agent in plan-then-act rounds. `agent.tools` should include the code_skills toolset."""

    def __init__(
        self,
        agent: Agent,
        *,
        max_rounds: int = MAX_ROUNDS,
        skills: Callable[[], list] | None = None,
    ) -> None:
        self.agent = agent
        self.max_rounds = max_rounds
        self._skills = skills or self._discover

    def _discover(self) -> list:
        from grove.skills.discover import discover

        ctx = self.agent.ctx
        settings = ctx.settings
        if settings is None:
            from grove.config import load_settings

            settings = load_settings()
        return discover(settings, ctx.workspace).sorted()

    def run(self, goal: str) -> PlanRun:
        run = PlanRun(goal)
        last = ""
        for number in range(1, self.max_rounds + 1):
            env = perceive(goal, self.agent.ctx.workspace, last, self._skills(), number)
            plan = self._plan(env, run)
            step = plan.steps[0]
            self.agent.events.on_notice(f"plan, round {number}:\n{plan.render()}")
            current = Round(number, plan, step)
            run.rounds.append(current)
            if step.kind == "done":
                run.answer, run.done = step.detail, True
                return run
            self.agent.events.on_notice(f"step {number}: {step.render()}")
            current.outcome = last = self._act(number, step, run)
            if run.interrupted:
                run.answer = f"interrupted during step {number}"
                return run
        run.answer = f"stopped after {self.max_rounds} rounds without finishing; last result: {last[:500]}"
        self.agent.events.on_notice(run.answer)
        return run

    # -- plan ---------------------------------------------------------------------------------------------------
    def _plan(self, env: Environment, run: PlanRun) -> Plan:
        existing = sorted(env.code_skills)
        schema = plan_schema(existing)
        settings = replace(self.agent.settings, tool_choice=PLAN_TOOL)  # local model: the schema is a grammar
        self.agent.append({"role": "user", "content": env.render()})
        problem = "no plan"
        for _ in range(PLAN_ATTEMPTS):
            # through the agent: compression, context-overflow handling, cost and redaction as for any call
            completion = self.agent.call_model(schemas=[schema], settings=settings)
            run.model_calls += 1
            run.usage = run.usage + completion.usage
            plan: Plan | None = None
            for call in completion.tool_calls:
                if call.name != PLAN_TOOL or plan is not None:
                    self._tool_result(
                        call.id, call.name, f"Error: only {PLAN_TOOL} can be called while planning"
                    )
                    continue
                try:
                    plan = parse_plan(call.arguments, existing)
                except PlanError as e:
                    problem = str(e)
                    self._tool_result(call.id, call.name, f"Error: {e}; submit a corrected plan")
                    continue
                self._tool_result(
                    call.id, call.name, f"plan accepted; acting on step 1: {plan.steps[0].render()}"
                )
            if plan is not None:
                return plan
            if not completion.tool_calls:
                problem = "the reply held no plan"
                self.agent.append(
                    {"role": "user", "content": f"[grove plan] Call {PLAN_TOOL} with the steps."}
                )
        raise PlanError(f"no valid plan after {PLAN_ATTEMPTS} attempts: {problem}")

    # -- act ----------------------------------------------------------------------------------------------------
    def _act(self, number: int, step: PlanStep, run: PlanRun) -> str:
        start = len(self.agent.messages)
        result = self.agent.run_turn(STEP_PROMPT.format(n=number, step=step.render()))
        run.model_calls += result.model_calls
        run.usage = run.usage + result.usage
        run.tool_calls += result.tool_calls
        run.interrupted = result.interrupted
        tool_out = [str(m.get("content") or "") for m in self.agent.messages[start:] if m["role"] == "tool"]
        last_tool = f"\n{tool_out[-1]}" if tool_out else ""
        return f"{step.render()} -> {result.answer.strip()}{last_tool}"

    def _tool_result(self, call_id: str, name: str, content: str) -> None:
        self.agent.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})


def run_plan_turn(agent: Agent, goal: str, max_rounds: int = MAX_ROUNDS) -> TurnResult:
    """`grove run --plan`: plan-then-act on `goal` with the agent's tools plus code_skills, as one TurnResult."""
    agent.tools = with_code_skills(agent.tools)
    try:
        run = PlanAndAct(agent, max_rounds=max_rounds).run(goal)
    except PlanError as e:
        agent.events.on_notice(str(e))
        return TurnResult(answer=f"could not make a plan: {e}", budget_exhausted=True)
    return TurnResult(
        answer=run.answer,
        model_calls=run.model_calls,
        usage=run.usage,
        tool_calls=run.tool_calls,
        interrupted=run.interrupted,
        budget_exhausted=not run.done and not run.interrupted,
    )
