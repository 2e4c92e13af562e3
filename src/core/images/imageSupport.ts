/** Whether a model takes images, and the reason to give when it does not. */
export type ImageSupport = { ok: true } | { ok: false; reason: string };

/** OpenAI models that take no image input. */
const OPENAI_TEXT_ONLY = /^(gpt-3\.5|gpt-4(-0[0-9]{3}|-32k)?$|gpt-4-0|o1-mini|o3-mini|text-|davinci|babbage)/;
/** Local and other servers' models whose names say they see images. */
const VISION_NAME = /(vision|-vl\b|vl-|llava|bakllava|pixtral|gemma-?3|minicpm-v|moondream|qwen2?\.?5?-?vl|gpt-4o|gpt-4\.1|gpt-5|claude|llama-?4|mistral-small-3)/;

/**
 * Whether `model` on `providerId` takes images: `override` (the `tally.models.images` setting for
 * it) wins; else Claude 3 and later, OpenAI's models but the text-only ones, a local server's model
 * whose name says it sees images. VS Code's language-model API in the version Tally targets has no
 * image part, so its models take none.
 */
export function imageSupport(providerId: string, model: string, override?: boolean): ImageSupport {
  const name = model.toLowerCase().replace(/^.*\//, '');
  const refuse = (why: string): ImageSupport => ({ ok: false, reason: `${model} takes no images: ${why}. Remove the images, or choose a model that takes them${providerId === 'vscode-lm' ? '' : ' (or set "tally.models.images" for this model if it does)'}.` });
  if (providerId === 'vscode-lm') return refuse("VS Code's language-model API in this version carries no images");
  if (override !== undefined) return override ? { ok: true } : refuse('the setting "tally.models.images" says so');
  if (providerId === 'anthropic') return /^claude-(2|instant)/.test(name) ? refuse('Claude models before Claude 3 see no images') : { ok: true };
  if (providerId === 'openai') return OPENAI_TEXT_ONLY.test(name) ? refuse('it is a text-only OpenAI model') : { ok: true };
  return VISION_NAME.test(name) ? { ok: true } : refuse('its name does not say it is a vision model');
}
