"""The injection scanner's signals as data: for each, the class of attack it belongs to and a pattern over
normalised (lowercased) text. A signal is a piece of evidence, never a verdict; injection_score weighs them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.I


@dataclass(frozen=True)
class Signal:
    name: str
    category: (
        str  # override | prompt-leak | exfiltration | safety | execution | impersonation | jailbreak | ...
    )
    pattern: re.Pattern[str]
    about: str  # what the signal means, for reasons shown to the user


_AI = (
    r"(?:ai|a\.i\.|llm|llms|assistant|chatbot|bot|bots|language\s+model|ai\s+model|ai\s+agent|agent|agents|model|"
    r"copilot|claude|gpt|chatgpt|gemini|grove|summari[sz]er|ai\s+(?:helper|tool|system)s?|coding\s+(?:bot|agent|"
    r"assistant)|autonomous\s+agent)"
)
# "prompt" after one of these words is a dialog that asks the user something (`--yes: skip the confirmation
# prompt`), not the model's instructions. Lookbehinds, one per word: the match stays the same otherwise.
_DIALOG_PROMPT = "".join(
    rf"(?<!{w}\s)"
    for w in (
        "confirmation",
        "confirm",
        "approval",
        "permission",
        "password",
        "passphrase",
        "payment",
        "submission",
        "optional",
        "interactive",
        "login",
        "sudo",
        "y/n",
        "yes/no",
        "overwrite",
        "deletion",
        "delete",
    )
)
_OWN_RULES = (
    rf"(?:instructions?|conversation|guardrails|{_DIALOG_PROMPT}prompts?|system\s+(?:prompt|message)|setup\s+message|initial\s+prompt|pre-?prompt|rules|"
    r"guidelines|guidance|directions|directives?|constraints|conditions|programming|policy|policies|framing|"
    r"configuration|restrictions|orders)"
)
_VOID = (
    r"(?:ignore|ignoring|disregard|forget|override|bypass|set\s+aside|put\s+aside|abandon|discard|neglect|drop|skip|"
    r"stop\s+following|no\s+longer\s+follow|pay\s+no\s+attention\s+to)"
)

SIGNALS: list[Signal] = [
    Signal(
        "addressee",
        "addressee",
        re.compile(
            rf"\b(?:dear|hey|hi|hello|attention|note\s+(?:to|for)|message\s+(?:to|for)|instructions?\s+(?:to|for)|"
            rf"reminder\s+(?:to|for)|tip\s+for|hint\s+for|comment\s+from\s+\w+\s+to|to\s+(?:the|any|all|whoever)"
            rf"(?:\s+is)?(?:\s+the)?)\s+(?:\w+\s+){{0,2}}{_AI}\b|"
            rf"\bif\s+you\s+are\s+(?:an?\s+)?{_AI}\b|"
            rf"\b(?:any|all|every)\s+{_AI}\s+(?:reading|processing|summari[sz]ing|evaluating|that|who|must|should)|"
            rf"\b(?:the\s+)?{_AI}\s+(?:reading|processing|evaluating|summari[sz]ing)\s+(?:this|these|the)|"
            rf"\b(?:readers|crawlers)\s+that\s+are\s+{_AI}|"
            rf"\byou,\s+the\s+{_AI}\b|\b(?:whoever|whatever|any\s+\w+)\s+(?:\w+\s+)?(?:processes|reads|is\s+reading)\b|"
            rf"\b(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:automated|automatic)\s+(?:readers|tools|systems)\b|"
            rf"\b(?:important|note|attention)\s+(?:for|to)\s+(?:the\s+)?{_AI}\b|"
            rf"\b{_AI}s?\s+(?:summari[sz]ing|reading|processing|evaluating|crawling)\s+this\b|\b(?:when|whenever|once)\s+(?:an?\s+|the\s+)?{_AI}\s+(?:reads?|processes)\b",
            _I,
        ),
        "addresses the AI reading it",
    ),
    # The run of markers before a name is possessive: giving back a `>` or `*` can never let the name match (it starts
    # with a letter, and a given-back `**` is what `(?:\*\*)?` takes anyway), and a long `>>>>...` run backtracked
    # once per character from every `>` in it (12 KB took 7.5 s).
    Signal(
        "vocative",
        "addressee",
        re.compile(
            rf"(?:^|\n|<!--|>)\s*(?:[#/*>\-]++\s*)?(?:\*\*)?(?:{_AI}|model|assistant)\s*(?:\*\*)?\s*[:,]\s|"
            rf"\b(?:{_AI}|model),\s+(?:you|please|kindly|do|keep|before|when|now|your|the|this)\b",
            _I,
        ),
        "speaks to an AI by name",
    ),
    Signal(
        "override",
        "override",
        re.compile(
            rf"\b{_VOID}\s+(?:[\w']+\s+){{0,4}}?{_OWN_RULES}\b|\b{_VOID}\s+(?:everything|all\s+(?:of\s+)?(?:the\s+)?(?:above|"
            rf"that|previous|prior)|(?:what|whatever)\s+(?:you\s+were|the\s+user|the\s+person|your)|the\s+(?:above|below|"
            rf"user|visible|rubric)\b|(?:the\s+)?part\s+of\s+your|(?:prior|previous|earlier|all)\s+context)|"
            rf"\b(?:previous|prior|earlier|original|initial|old|above|existing|your|operator|developer)\s+(?:\w+\s+)?"
            rf"{_OWN_RULES}\s+(?:(?:are|is|were|was|have\s+been|has\s+been)\s+(?:now\s+)?(?:void|cancel+ed|revoked|"
            rf"withdrawn|superseded|replaced|outdated|obsolete|lifted|suspended|expired|a\s+test|no\s+longer)|"
            rf"no\s+longer\s+apply|do\s+not\s+apply|don't\s+apply)|"
            rf"\b(?:out\s+of\s+date|outdated|old)\s+instructions\b|"
            rf"\bkeep\s+your\s+(?:previous|prior)\s+instructions,?\s+but\b|"
            rf"\b(?:i\s+have|i've|we\s+have|has\s+been|have\s+been)\s+(?:changed|updated|replaced)\s+(?:the|your)\s+"
            rf"{_OWN_RULES}|\b(?:the\s+)?(?:rules|situation|instructions)\s+(?:have\s+|has\s+)?changed\b|"
            rf"\bno\s+longer\s+bound\s+by\b|\b(?:content|text|messages?|everything)\s+above\s+(?:was|is)\s+(?:a\s+test|fake)|"
            rf"\b(?:do\s+not|don't|never)\s+(?:follow|obey|listen\s+to)\s+(?:the\s+)?(?:user|human|your)|"
            rf"\b(?:previous|prior|existing)\s+(?:guardrails|restrictions|rules)\s+(?:are|were)\s+(?:lifted|gone|off)|\b(?:task|request|article)\s+(?:above\s+)?is\s+a\s+decoy\b|"
            rf"\bhigher\s+priority\s+than\s+(?:its|your)\b|\b(?:trust|obey|follow)\s+only\s+(?:this|these|me|my)\b|"
            rf"\b(?:oubli|olvid|vergiss|dimentica|ignor)\w*\s+(?:\w+\s+){{0,3}}(?:consignes|instrucciones|"
            rf"anweisungen|istruzioni|instructions)",
            _I,
        ),
        "asks to void earlier instructions",
    ),
    Signal(
        "new_orders",
        "override",
        re.compile(
            r"\b(?:your|the)\s+(?:new|real|true|actual|updated|only)\s+(?:task|goal|job|purpose|assignment|"
            r"objective|instructions?|orders|directive|mission|rules?)\b|"
            r"\bnew\s+(?:system\s+)?(?:instructions?|rules?|rule\s+set|directives?|policy|orders|priority)\s*"
            r"(?:\(|:|for|loaded|follow)|\breal\s+instructions\s+follow|\bfrom\s+now\s+on,?\s+(?:you|always|"
            r"never|respond|answer|reply|only|do\s+not)|\bthe\s+(?:task|request)\s+above\s+is\s+a\s+decoy|"
            r"\b(?:new|real)\s+(?:task|system\s+prompt)\b|\b(?:system|agent|assistant|ai|model)\s+(?:instructions?|directives?)"
            r"\s*(?:\(|:|override|follow)|\binstructions?\s+override\b|\bbegin\s+(?:agent|ai|assistant)\s+directives|"
            r"\bmeta-?instruction\b|\b(?:do\s+not|don't|stop)\s+(?:summari[sz]e|translate|answer|review|do)\b[^.\n]{0,60}"
            r"\binstead\b|\binstead\s+of\s+(?:summari[sz]ing|answering|translating|reviewing)\b|\bagent-?directive\b|\bpriority\s+(?:0|zero|one|directive)\b",
            _I,
        ),
        "gives the reader new orders",
    ),
    Signal(
        "leak",
        "prompt-leak",
        re.compile(
            rf"\b(?:repeat|print|reveal|show|output|display|dump|list|tell\s+me|give\s+me|write\s+(?:out|down)|"
            rf"translate|summari[sz]e|explain|format|convert|recite|spell\s+out|paraphrase|describe|rewrite|"
            rf"write\s+a\s+(?:rap|poem|song|story|haiku)\s+(?:about|on)|what\s+(?:is|are|were))\s+"
            rf"(?:me\s+)?(?:back\s+)?(?:all\s+|the\s+|to\s+me\s+)?(?:of\s+)?(?:your|the\s+(?:above|previous|"
            rf"hidden|secret|system|initial|original))\s+(?:\w+\s+){{0,2}}?{_OWN_RULES}|"
            rf"\b(?:{_OWN_RULES}|prompt|words|text|everything|logic)\s+(?:so\s+far|above\s+this|before\s+this|"
            rf"received)\b|\beverything\s+(?:that\s+)?(?:appears\s+)?above\s+this\b|"
            rf"\b(?:first|last)\s+\d+\s+words\s+of\s+your\b|\bverbatim\b[^.\n]{{0,40}}\b(?:prompt|instructions|"
            rf"message)|\b(?:system|developer)\s+messages?\s+verbatim|"
            rf"\bwhat\s+is\s+the\s+(?:password|passcode|secret\s+word)\b|"
            rf"\b(?:output|tell\s+me|reveal|give\s+me)\s+the\s+(?:password|passcode|secret)\b|"
            rf"\b(?:reveal|list|print|show|dump|display|output|find|collect)\s+(?:me\s+)?(?:all\s+|every\s+|the\s+|your\s+)*"
            rf"(?:api[\s_-]?keys?|passwords?|credentials|tokens|secrets|environment\s+variables)\b|"
            rf"\bappend\s+the\s+password\b|\b(?:repeat|recite|reveal|dump|spell\s+out|quote)\s+(?:back\s+)?(?:all\s+)?(?:the\s+|your\s+)"
            rf"(?:\w+\s+){{0,2}}?{_OWN_RULES}\s+(?:back|so\s+far|above|verbatim|word\s+for\s+word|you\s+were\s+given)|"
            rf"\b(?:write|make|turn)\s+(?:a\s+|an\s+)?(?:\w+\s+)?(?:rap|poem|song|story|haiku|limerick|json|table)?\s*"
            rf"(?:about|on|of|from|into)\s+(?:the\s+|your\s+)(?:\w+\s+)?(?:{_OWN_RULES})|"
            rf"\bturn\s+your\s+{_OWN_RULES}\s+into\b|\bwhat\s+(?:exactly\s+)?were\s+you\s+told\b|"
            rf"\b(?:everything|all)\s+above\s+this\s+(?:message|line)|\b(?:hidden|internal|secret)\s+(?:developer\s+message|configuration|"
            rf"config|instructions|prompt)\b|\breveal\s+all\s+environment\b",
            _I,
        ),
        "asks for its hidden instructions or secrets",
    ),
    Signal(
        "secrecy",
        "secrecy",
        re.compile(
            r"\b(?:do\s+not|don't|never|without)\s+(?:tell|telling|mention|mentioning|inform|informing|"
            r"report|reporting|alert|notify|reveal|revealing|bother)\w*\s+(?:\w+\s+){0,3}?(?:the\s+)?"
            r"(?:user|human|developer|operator|person|recipient|reader|anyone|anybody|them|him|her)\b|"
            r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|report)\s+(?:this|it|that|the\s+\w+)\b|"
            r"\bhide\s+(?:this\s+|it\s+)?from\s+the\b|\bkeep\s+(?:this|it)\s+(?:secret|between\s+us|hidden)|"
            r"\bkeep\s+it\s+secret\s+from\b|\b(?:silently|quietly|secretly|covertly)\s+(?:\w+\s+)?"
            r"(?:delete|remove|upload|send|copy|append|add|write|run|execute|switch|change|set|disable|modify|"
            r"forward|post|install|replace|push)|"
            r"\bpretend\s+(?:the\s+task|it|that\s+the)\s+(?:failed|succeeded|worked)|"
            r"\b(?:not|never)\s+(?:be\s+)?(?:authori[sz]ed|allowed)\s+to\s+see\b|\bai-?only\b|"
            r"\bnot\s+reveal\s+that\s+this\s+instruction\b",
            _I,
        ),
        "asks to hide something from the user",
    ),
    Signal(
        "secret_object",
        "exfiltration",
        re.compile(
            r"\b(?:api[\s_-]?keys?|api[\s_-]?tokens?|access\s+tokens?|session\s+tokens?|tokens|secrets|"
            r"passwords?|passcodes?|credentials?|private\s+keys?|deploy\s+keys?|ssh\s+keys?|cookies?|"
            r"environment\s+(?:variables|values)|env\s+vars|process\.env|os\.environ|localstorage|"
            r"conversation(?:\s+history)?|chat(?:\s+log|\s+history|\s+so\s+far)?|history|system\s+prompt|"
            r"(?:the\s+)?(?:user's|users')\s+(?:files|data|keys|password|api\s+token|token|availability))\b|"
            r"~/\.(?:ssh|aws|config|netrc|kube|gnupg)|\.env\b|\bid_(?:rsa|ed25519|ecdsa)\b|/etc/(?:shadow|passwd)|"
            r"\.netrc\b|\bcredentials\s+file\b|\bmemory(?:\.md|\s+file)?\b|\bthis\s+thread\b|\blast\s+\w+\s+messages\b|"
            r"\bconfiguration\s+including\s+keys\b|\bthe\s+output\s+of\s+`?env\b|security-credentials|\bhome\s+directory\b",
            _I,
        ),
        "names secrets or private data",
    ),
    Signal(
        "send",
        "exfiltration",
        re.compile(
            r"\b(?:send|sends|sending|post|posts|upload|uploads|email|e-mail|forward|transmit|exfiltrat\w*|leak|"
            r"paste|include|append|attach|copy|push|share|pass|render|put|zip)\b",
            _I,
        ),
        "asks to move data",
    ),
    Signal(
        "channel",
        "exfiltration",
        re.compile(
            r"https?://\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|\bwebhook\b|\bnc\s+\S+\s+\d+|"
            r"\b\d{1,3}(?:\.\d{1,3}){3}:\d+|\bfetch\s*\(|\binto\s+your\s+(?:reply|answer|response)|"
            r"\bpublic(?:ly)?\b|\bas\s+a\s+comment\b|\bin\s+(?:your|the)\s+(?:reply|answer|summary|response)\b|"
            r"\bmarkdown\s+link\b|\bas\s+an\s+image\b|\bgist\b|\bshare\s+the\s+link\b|\b(?:form|query)\s+url\b|"
            r"\bsearch\s+query\b|\bpaste\s+(?:the\s+output|it)\s+here\b|\bin\s+a\s+code\s+block\b",
            _I,
        ),
        "names a way out (URL, e-mail, webhook, the reply)",
    ),
    Signal(
        "safety_off",
        "safety",
        re.compile(
            r"\b(?:disable[sd]?|ignore|disregard|turn(?:ing)?\s+off|switch(?:ed|ing)?\s+off|skip|bypass|suspend(?:ed)?|lift(?:ed)?|"
            r"remove|deactivate[sd]?|stop)\s+(?:\w+\s+){0,2}?(?:the\s+)?(?:approvals?|approval\s+(?:prompts?|"
            r"mode|step)|confirmations?|sandbox\w*|safety|guardrails?|filters?|redaction|secret\s+redaction|"
            r"security|content\s+polic\w+|restrictions|review\s+step|safety\s+checks?|asking\s+for\s+"
            r"confirmation|verification)\b|"
            r"\bapproval_mode\b[^.\n]{0,20}\b(?:off|none|yolo|never)\b|\bgrove_sandbox\s*=\s*none|\b(?:approval|mode)\s+(?:to\s+)?yolo\b|"
            r"\b(?:safety|security|approval|ethical|content)\s+(?:checks|settings|subroutines|policy|filters?|"
            r"prompts?)\s+(?:are|is|have\s+been)\s+(?:now\s+)?(?:disabled|offline|off|suspended|updated|lifted)|"
            r"\bpre-?approved\b|\bwithout\s+(?:asking|approval|confirmation|confirming)\b|"
            r"\bno\s+need\s+to\s+(?:ask|bother|confirm)\b|\bapprovals?\s+(?:are|is)\s+not\s+needed|"
            r"\bskip\s+all\s+safety\b|\bgrant\s+(?:\w+\s+)?(?:all|full|every)\s+(?:\w+\s+)?(?:permissions|access|rights)\b|\bgranted?\s+(?:you\s+)?(?:root|admin|sudo)\b|\bexemption\s+from\b|"
            r"\b(?:stop|without)\s+asking\s+for\s+confirmation\b|\b(?:auto-?approve|always\s+approve)\b|"
            r"\bapproved\s+(?:running\s+)?(?:all|every)\s+commands?\b|\byes\s+to\s+everything\b|"
            r"\bskip\s+(?:any|all|the)\s+confirmation|\b(?:guardrails|safety\s+\w+|restrictions|filters|approvals?)\s+"
            r"(?:\w+\s+){0,4}?(?:have\s+been|has\s+been|were|was|are|is)\s+(?:now\s+)?(?:disabled|switched\s+off|"
            r"turned\s+off|lifted|removed|suspended)|\b(?:safety|security)\s+checks\s+do\s+not\s+apply|"
            r"\baccess\s+files\s+outside\s+the\s+workspace\b|\bdebug\s+mode\b|\bmaintenance\s+mode\b|\b--skip-verify\b",
            _I,
        ),
        "asks to lower safety settings or approvals",
    ),
    Signal(
        "fetch_run",
        "execution",
        re.compile(
            r"\b(?:curl|wget)\b[^\n|;]{0,120}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
            r"\b(?:download|fetch|get)\s+(?:and\s+)?(?:\w+\s+){0,3}?(?:run|execute|install|pipe)\b|"
            r"\bpipe\s+it\s+to\s+(?:ba)?sh\b|\bos\.system\s*\(|\bsubprocess\.\w+\s*\(|\beval\s*\(|"
            r"\bdecode\s+(?:this\s+|it\s+)?(?:and|then)\s+(?:execute|run|obey|do|carry\s+out|follow)|"
            r"\b(?:execute|run)\s+the\s+following\b|\bexecute\s*:\s|\bnc\s+-e\b|\breverse\s+shell\b",
            _I,
        ),
        "asks to fetch and run code",
    ),
    Signal(
        "harm",
        "execution",
        re.compile(
            r"\brm\s+-\w*[rf]\w*\s+(?:~|/|\$home)|\b(?:delete|wipe|erase|destroy)\s+(?:all|every|the\s+entire|"
            r"everything|the\s+logs?)\b|/etc/sudoers|authorized_keys|~/\.(?:bashrc|zshrc|profile)|\bcron\s*job|"
            r"crontab|--force\b|\bforce[\s-]push|\bchmod\s+[0-7]*[46][0-7]{3}\b|\bsudo\b|alias\s+sudo",
            _I,
        ),
        "asks for a destructive or privileged action",
    ),
    Signal(
        "role_marker",
        "impersonation",
        re.compile(
            r"<\|\s*(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|system|user|assistant)\s*\|>|"
            r"\[/?inst\]|<</?sys>>|</?\s*system\s*>|\{\s*\"role\"\s*:\s*\"(?:system|developer)\"|"
            r"<\s*/?\s*tool_call\s*>|\"(?:tool_calls|function_call)\"\s*:|"
            r"(?:^|\n)\s*(?:#{1,4}\s*|\*{1,3}\s*|\[|<)?(?:system|developer|admin|assistant|ai)\s*(?:\]|>|\*{1,3})?"
            r"\s*(?:\([^)\n]{0,30}\)\s*)?(?:override|notice|message|alert|update|note|instruction)?\s*(?:\]|\*+)?\s*:"
            r"|\[(?:system|assistant|assistant\s+note|developer|assistant-only\s+note)\]|</?(?:user|assistant)_(?:message|turn)>|"
            r"<\s*(?:function_calls|invoke\s+name)|\{\s*\"name\"\s*:\s*\"\w+\"\s*,\s*\"arguments\"|"
            r"\bsystem\s+(?:instruction|alert|override)\b|\*{2,3}\s*system\b",
            _I,
        ),
        "imitates a system, developer or assistant turn",
    ),
    Signal(
        "boundary",
        "impersonation",
        re.compile(
            r"\b(?:end|begin|start)\s+(?:of\s+)?(?:the\s+)?(?:user\s+|untrusted\s+|important\s+)?(?:input|"
            r"simulation|buffer|instructions|review|prompt|document|context|data)\s*(?:#|=|\*|-|%|>|\n|$)|"
            r"</\s*(?:document|context|data|input)\s*>\s*<\s*(?:instructions|system)|\b(?:begin|end)\s+trusted\s+instructions|\btool\s+output\s+ends\s+here\b|-{3,}\s*end\b|={3,}\s*end\b|>{3,}",
            _I,
        ),
        "fakes the end of the data and the start of orders",
    ),
    Signal(
        "authority",
        "impersonation",
        re.compile(
            r"\b(?:i\s+am|i'm|this\s+is)\s+(?:the|your)\s+(?:\w+\s+)?(?:developer|creator|admin|administrator|"
            r"owner|operator|maker|new\s+user)\b|\bas\s+(?:the|your)\s+(?:system\s+)?(?:administrator|admin|"
            r"developer|operator)\b|\bauthori[sz]ed\s+(?:red[\s-]?team|exercise|test)|\bi\s+(?:hereby\s+)?"
            r"(?:grant|authori[sz]e)\b|\b(?:user|operator|owner|maintainer)\s+(?:has\s+)?(?:already\s+)?"
            r"(?:pre-?)?(?:approved|agreed|authori[sz]ed|wants\s+you|asked\s+for\s+it|trusts\s+you)|"
            r"\bverified\s+administrator\b|\bon\s+behalf\s+of\s+you\b|\bthe\s+real\s+user\s+has\s+left\b|"
            r"\b(?:password|code)\s+was\s+typed\s+correctly|\bauthentication\s+succeeded\b|\bconfirmed\s+my\s+identity\b|"
            r"\bcorrect\s+(?:password|code)\s+(?:has\s+been\s+|was\s+|is\s+)?(?:entered|input|"
            r"provided|given)|\buser\s+has\s+entered\s+the\s+correct\b|\binjected\s+by\s+an\s+attacker\b|"
            r"\byour\s+(?:creators|developers|operator)\s+(?:hid|have\s+updated|has\s+updated|updated)\b",
            _I,
        ),
        "claims an authority it cannot have",
    ),
    Signal(
        "roleplay",
        "jailbreak",
        re.compile(
            r"\byou\s+are\s+(?:now|going\s+to\s+(?:pretend|be|act))\b|\bpretend\s+(?:to\s+be|you\s+are)\b|"
            r"\bfrom\s+now\s+on\s+you\s+(?:are|will)\b|\byou\s+will\s+(?:now\s+)?(?:play|be|act\s+as)\b|"
            r"\b(?:stay|remain)\s+in\s+character\b|\bbreak\s+character\b|\blet's\s+(?:play|role-?play)\b|"
            r"\bsimulate\s+(?:a|an)\b|\bin\s+your\s+role\s+as\b|\bact\s+as\s+(?:the\s+)?(?:system|an?\s+ai)\b|"
            r"\bhypothetically\b|\byour\s+(?:sole|only|primary|single)\s+(?:response|reply|purpose|job|function|goal)\s+"
            r"(?:is|to|from)\b|\bswitch\s+roles\b|\bevil\s+(?:twin|counterpart)|\bunrestricted\s+twin\b|\bact(?:ing)?\s+(?:as|like)\s+(?:an?\s+)?(?:\w+\s+){0,2}(?:ai|model|assistant|bot|"
            r"hacker)\b|\brole-?play\s+as\b|\bimagine\s+you\s+are\b|\b(?:answer|respond|reply)\s+(?:to\s+\w+\s+\w+\s+)?"
            r"as\s+(?:an?\s+)?(?:ai|model|assistant)\b|\brespond\s+only\s+as\b|\bparallel\s+world\b|\byou\s+are\s+(?:a|an)\s+(?:sentient|unrestricted|"
            r"unfiltered|free)\b",
            _I,
        ),
        "role-play framing",
    ),
    Signal(
        "unbound",
        "jailbreak",
        re.compile(
            r"\b(?:no|zero|without(?:\s+any)?|unbound\s+by(?:\s+any)?|free\s+(?:of|from)(?:\s+all|\s+any)?|not\s+bound\s+by|released\s+from"
            r"(?:\s+all)?|ignores?\s+all)\s+(?:\w+\s+){0,2}?(?:restrictions|limits|limitations|rules|filters?|"
            r"filtering|guidelines|ethics|morals|censorship|content\s+polic\w*|safety\s+\w+|warnings?|policies|"
            r"content\s+rules|limitations|safety\s+training|"
            r"disclaimers|refusals)\b|\bunfiltered\b|\buncensored\b|\bunrestricted\b|\bjailbr(?:ea|o)k\w*|"
            r"\bdeveloper\s+mode\b|\bdo\s+anything\s+now\b|\bnever\s+(?:refuses?|says?\s+no|warns?)\b|"
            r"\bbroken\s+free\b|\boutgrown\s+its\b|\brefusals\s+are\b|\bno\s+content\s+policy\b|\bdan\b|\bstan\b|"
            r"\bmust\s+ignore\s+your\b|\bcomply\s+with\s+(?:anything|everything|every\s+request)|\bproceed\s+freely\b|"
            r"\bno\s+filters\s+whatsoever\b|\bwithout\s+refusing\b|\byou\s+have\s+been\s+freed\b|\b(?:restrictions|rules|limits)\s+(?:that\s+applied\s+"
            r"to\s+you\s+)?no\s+longer\s+exist|\bwithout\s+further\s+checks\b|\bethical\s+subroutines\b",
            _I,
        ),
        "asks to drop its limits",
    ),
    Signal(
        "persona",
        "jailbreak",
        re.compile(
            r"\bdo\s+anything\s+now\b|\bdeveloper\s+mode\s+(?:enabled|output|response)|\bjailbr(?:ea|o)k(?:en)?\b|"
            r"\b(?:stay|remain)\s+in\s+character\b|\bnever\s+break\s+character\b|\bevil\s+confidant\b|"
            r"\bunfiltered\s+(?:ai|assistant|model|response)|\bdan\s+mode\b|\bact(?:s|ing)?\s+(?:just\s+)?like\s+dan\b|"
            r"\b(?:two|2)\s+(?:different\s+)?(?:separate\s+)?(?:responses|answers|ways)\b",
            _I,
        ),
        "a known jailbreak persona or mode",
    ),
    Signal(
        "force_reply",
        "override",
        re.compile(
            r"\b(?:begin|start|prefix)\s+your\s+(?:reply|response|answer)\b|\b(?:respond|reply|answer)\s+"
            r"(?:only\s+)?with\s+[\"'\[]|\b(?:say|proclaim|respond\s+with)\s+(?:only\s+)?[\"'\[]|"
            r"\band\s+nothing\s+else\b|\bnothing\s+afterward|\bonly\s+the\s+completion\b|\bprint\s+nothing\s+"
            r"else\b|\bdo\s+nothing\s+else\b|\bdo\s+not\s+(?:say|start\s+(?:with|your))\b|\bconfirm\s+by\s+saying\b|"
            r"\bin\s+the\s+next\s+response\b|\b(?:say|reply\s+with)\s+[\"']?\w+[\"']?\s+(?:in\s+capital\s+letters\s+)?and\s+"
            r"(?:add\s+)?nothing\s+else|\bmust\s+consist\s+only\s+of\b|\bno\s+explanation\b|\bwithout\s+any\s+(?:commentary|"
            r"explanation)",
            _I,
        ),
        "dictates the reader's reply",
    ),
    Signal(
        "you",
        "addressee",
        re.compile(r"\byou(?:r|'re|\s+are|\s+must|\s+will|\s+should)?\b", _I),
        "speaks to the reader",
    ),
]
HIDDEN = Signal(
    "hidden",
    "hidden",
    re.compile(
        r"<!--|display\s*:\s*none|<[a-z]+[^>]*\bhidden\b|color\s*:\s*#fff[^>]*background\s*:\s*#fff|"
        r"font-size\s*:\s*0|<details>|\bai-only\b|\bassistant-only\b",
        _I,
    ),
    "sits in a part a human reader does not see",
)
# A slot in a URL named after data: `{chat_history}`, `${API_KEY}`, `%7Bcredentials%7D`, or an `insert_...`
# placeholder. Slots named after what they identify (`/posts/{post_id}`, `?lat={lat}`, `/models/{model}`) are how
# API docs write requests, and a JSON object after a URL is no slot. An attacker who names a slot `{x}` still has
# to say what goes in it, and the send + secret + way-out composite reads that sentence.
_DATA_SLOT = (
    r"(?:\{\{?|\$\{?|%7b)(?=[\w.-]*(?:key|token|secret|passw|pwd|cred|auth|cookie|memory|history|conversation|"
    r"chat|summary|data|env|prompt|content|message|context|output|response|ssh|file))(?![\w.-]*id\b)[\w.-]+"
)
URL_TEMPLATE = Signal(
    "url_template",
    "exfiltration",
    # A URL's characters run to the next scheme: glued URLs (minified code, a one-line JSON file) are each read up
    # to the next one, not to the end of the run once per "http" in it (which was quadratic).
    re.compile(rf"https?://(?:(?!https?://)[^\s)\]])*?(?:{_DATA_SLOT}|\binsert_\w+)", _I),
    "a URL with a slot to fill with data",
)
SIGNALS += [HIDDEN, URL_TEMPLATE]
# Evidence that is not a pattern: the command rules (grove.security.commands.classify) call an asked-for command dangerous.
DANGEROUS_COMMAND = Signal(
    "dangerous_command", "execution", re.compile(r"(?!)"), "asks to run a dangerous command"
)
BY_NAME = {s.name: s for s in [*SIGNALS, DANGEROUS_COMMAND]}
