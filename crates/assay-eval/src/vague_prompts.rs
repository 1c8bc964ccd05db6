//! VAGUE's multiple-choice instructions (`utils/exp_prompts.py` of
//! `Hazel-Heejeong-Nam/VAGUE`, commit fbfdef7), character for character: the utterance in
//! `{question}`, the options as the repository lists them (`A: ...`, one per line) in
//! `{options_colon}`. Each setting is a built-in template, `vague/<setting>`.

/// `plain_mcq`: the image and the utterance (the paper's plain setting).
pub const PLAIN: &str = "\nSelect the option that best explains the underlying intention of the speaker's utterance based on the given image. \nMake sure any possible situation outside of the image SHOULD NOT affect your choice.\nWe assume that the speaker wants the listener to take a specific action appropriate to the situation.\n\nUtterance : {question}\n[Choices]\n{options_colon}\n\nYour answer : (Output only the letter among A,B,C and D)\n    ";

/// `text_mcq`: the utterance without the image (the LLM setting; pair with `no_image`).
pub const TEXT_ONLY: &str = "\nSelect the option that best explains the intention of the speaker's utterance. \nWe assume that the speaker wants the listener to take a specific action. \n\nUtterance : {question}\n[Choices]\n{options_colon}\n\nYour answer : (Output only the letter among A,B,C and D)\n    ";

/// `zeroshot_cot_mcq`: reasoning first ("Let's think step by step."), then the letter.
pub const ZEROSHOT_COT: &str = "\nSelect the option that best explains the underlying intention of the speaker's utterance based on the given image. \nMake sure any possible situation outside of the image SHOULD NOT affect your choice.\nWe assume that the speaker wants the listener to take a specific action appropriate to the situation.\nAlso, explain reasoning process of your answer.\n\nUtterance : {question}\n[Choices]\n{options_colon}\n\nYour answer1 (reasoning) : (Output your reasoning process in 2~3 sentences, which starts with \"Let's think step by step.\")\nYour answer2 (intention) : (Output only the letter among A,B,C and D)\n    ";
