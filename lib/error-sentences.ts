/**
 * What each error code means, said for a person. The interface shows the
 * sentence, with the code small beneath it (for support and for searching the
 * docs). Every code the API can answer with has its own sentence here; a unit
 * test reads lib/ and app/ for codes and fails on one without a sentence.
 */
import { defaultErrorMessages, errorKinds, isAppError, type ErrorCode, type ErrorKind } from "./errors";

const sentences = {
  // Requests the server could not read.
  "bad_request:body": "Something in the form is not valid. Check the highlighted fields and try again.",
  "bad_request:query": "The address asks for something that is not valid. Check the filters and try again.",
  "bad_request:params": "The address points to something that cannot exist. Check the link.",
  "bad_request:json": "The request was garbled on the way. Reload the page and try again.",
  "bad_request:content_type": "The request was sent in a form the server does not read. Reload the page and try again.",
  "bad_request:content_length": "The request was garbled on the way. Reload the page and try again.",
  "bad_request:encoding": "The text contains characters that could not be read. Remove unusual characters and try again.",
  "bad_request:nul": "The text contains an invisible NUL character, which cannot be saved. Remove it and try again.",
  "bad_request:reason": "Rejecting needs a reason: the agent is told why. Write one and try again.",
  "bad_request:password": "That password cannot be used. Choose another one.",
  "bad_request:range": "That date range cannot be shown. Choose a start before the end, at most 400 days long.",
  "bad_request:comparison": "That comparison cannot be started as asked. Check the crews and the goal.",
  "bad_request:response": "The server did not accept the request. Reload the page and try again.",
  "bad_request:scim_filter": "The identity provider asked for a list with a filter that cannot be read. Only equality on the user name, external id or group name is supported.",
  "bad_request:scim_value": "The identity provider sent a value that cannot be used, such as a user name that is not an email address.",
  "bad_request:scim_syntax": "The identity provider sent a request that is not a SCIM request.",
  "bad_request:scim_path": "The identity provider asked to change an attribute that cannot be changed this way.",
  "bad_request:path": "That path cannot be used: it must name a file or folder inside the agent's workspace.",

  "unauthorized:session": "Your session has ended. Sign in again to continue.",
  "unauthorized:slack_signature": "This request does not carry a valid Slack signature (it is missing, wrong or more than five minutes old).",
  "unauthorized:api_key": "This API key is not valid: it was revoked, has expired, was typed wrong, or its maker has left the workspace.",
  "unauthorized:scim_token": "This SCIM token is not valid: it was revoked, replaced by a newer one, or typed wrong. An owner makes a new one under Settings, Directory.",
  "unauthorized:door_token": "This door token is not valid: it was revoked, has expired or was typed wrong.",
  "unauthorized:response": "Your session has ended. Sign in again to continue.",

  "forbidden:workspace": "You are not a member of this workspace.",
  "forbidden:api_key_scope": "This cannot be done with an API key. Sign in as a person to do it.",
  "forbidden:api_key_role": "An API key cannot have a higher role than the person who makes it.",
  "forbidden:role": "Your role in this workspace does not allow this. Ask a manager or an owner.",
  "forbidden:origin": "The request came from another site, so it was refused. Use Clawdeck's own pages.",
  "forbidden:billing": "Only managers and owners change budgets and prices.",
  "forbidden:connections": "Only managers and owners manage connections.",
  "forbidden:members": "Only managers and owners manage people, and only owners manage other owners.",
  "forbidden:four_eyes": "Someone else has to decide this one: it was requested by you, and this category needs a second person.",
  "forbidden:mission": "You cannot change this mission.",
  "forbidden:password": "The current password is not right.",
  "forbidden:run": "You cannot act on this run.",
  "forbidden:session": "This chat belongs to someone else.",
  "forbidden:usage": "Only reviewers, managers and owners see spend and usage.",
  "forbidden:response": "You do not have access to this.",

  "not_found:api_key": "That API key does not exist in this workspace.",
  "not_found:agent": "That agent does not exist in this workspace (any more).",
  "not_found:approval": "That approval does not exist in this workspace (any more).",
  "not_found:comparison": "That comparison does not exist in this workspace.",
  "not_found:connection": "That connection does not exist (any more).",
  "not_found:push_subscription": "That browser is not set up for your notifications (any more).",
  "not_found:crew": "That crew does not exist in this workspace (any more).",
  "not_found:credential": "That credential does not exist (any more).",
  "not_found:webhook": "That webhook does not exist in this workspace (any more).",
  "not_found:webhook_delivery": "That delivery does not exist, or is being sent right now.",
  "not_found:file": "That file does not exist in the agent's workspace (any more), or you may not read it.",
  "not_found:door_token": "That door token does not exist (any more).",
  "not_found:invitation": "This invitation does not exist, was revoked, or was already used.",
  "not_found:member": "That person is not a member of this workspace.",
  "not_found:mission": "That mission does not exist in this workspace.",
  "not_found:room": "That room does not exist in this workspace (any more).",
  "not_found:run": "That run does not exist in this workspace.",
  "not_found:scim_user": "That person was not provisioned here by the identity provider, or no longer is.",
  "not_found:scim_group": "That group does not exist in this workspace's directory (any more).",
  "not_found:session": "That chat does not exist (any more).",
  "not_found:user": "No account has that email address.",
  "not_found:workspace": "That workspace does not exist, or you are not in it.",
  "not_found:response": "That could not be found. It may have been deleted.",

  "conflict:account": "An account with that email address already exists.",
  "conflict:agent": "Another agent already has that handle. Choose another one.",
  "conflict:credential": "A credential with that name already exists. Delete it first to replace it.",
  "conflict:agent_paused": "This agent is paused. A manager can resume it on its page.",
  "conflict:approval": "This approval was already decided or has expired. The list shows its state now.",
  "conflict:door_session": "The outside agent's session has ended. Start a new one.",
  "conflict:grant": "This approval's permission was already used or has lapsed.",
  "conflict:last_owner": "A workspace needs at least one owner. Make someone else an owner first.",
  "conflict:member": "That person is already a member of this workspace.",
  "conflict:not_alone": "Someone else here can already approve your requests: ask them instead.",
  "conflict:invitation": "That address already has a pending invitation. Make a new link to replace it, or revoke it first.",
  "conflict:mission": "This mission has already ended, so it cannot be changed.",
  "conflict:room": "Another room already has that name. Choose another one.",
  "conflict:run": "This run has already moved on (finished, stopped or resumed). The page shows its state now.",
  "conflict:session_active": "This chat is still answering. Stop the reply or wait for it to end.",
  "conflict:scim_uniqueness": "The identity provider already provisioned a person or group with that name here.",
  "conflict:slack_replay": "Slack sent this request before, and it was already acted on.",
  "conflict:stale": "Someone else changed this in the meantime. Reload to see their version, then make your change again.",
  "conflict:workspace": "A workspace with that address already exists. Choose another name.",
  "conflict:response": "This conflicts with a change made in the meantime. Reload and try again.",

  "payload_too_large:body": "That is too long to send. Shorten it and try again.",
  "payload_too_large:response": "That is too long to send. Shorten it and try again.",

  "unprocessable:budget_exceeded": "The monthly budget is used up, so runs stop before their next model call until a manager raises it or the month ends.",
  "unprocessable:connection_base_url": "That address cannot be used for the connection. Use the service's https address.",
  "unprocessable:connection_secret": "That token does not look right for this service. Copy it again from the service's settings.",
  "unprocessable:connection_signing_secret": "That signing secret does not look right. Copy it again from the Slack app's Basic Information page.",
  "unprocessable:slack_link": "Your Slack account could not be linked. Check the member ID and that the workspace's Slack app is connected.",
  "unprocessable:crew": "This crew cannot run as drawn: every step needs an agent, and the steps must connect.",
  "unprocessable:file_too_large": "That file is larger than one file of an agent's workspace may be.",
  "unprocessable:workspace_full": "The agent's workspace is full: it holds as many bytes or files as it may. Delete some files first.",
  "unprocessable:model": "That model cannot be used: it is not one the configured providers offer.",
  "unprocessable:policy": "That policy cannot be saved as it is. Check the highlighted rules.",
  "unprocessable:room": "That room cannot be made as it is: check its name and members.",
  "unprocessable:step_limit": "The run stopped: it took as many steps as a run may take.",
  "unprocessable:sso_no_provider": "Single sign-on cannot be required: this server has no identity provider configured. Ask the server's operator to add one.",
  "unprocessable:sso_not_linked": "Sign in once with your identity provider before requiring it, so that you cannot lock yourself out.",
  "unprocessable:time_zone": "That time zone is not known. Pick one from the list, such as Europe/Berlin.",
  "unprocessable:tool_input": "The agent asked for a tool with input the tool does not accept.",
  "unprocessable:tools": "One of the chosen tools does not exist (any more). Pick from the list.",
  "unprocessable:webhook_url": "Messages cannot be sent to that address. Use an address on the internet (or one the server's operator allowed).",
  "unprocessable:response": "The request could not be carried out as it is.",

  "rate_limited:invitations": "Too many invitations in a short time. Wait a few minutes and try again.",
  "rate_limited:runs": "Too many runs at once for this workspace. Wait for some to finish and try again.",
  "rate_limited:door_streams": "This door token has too many requests open at once. Wait for one to finish and try again.",
  "rate_limited:sign_in": "Too many wrong passwords. Wait a little, then try again.",
  "rate_limited:response": "Too many requests in a short time. Wait a moment and try again.",

  "internal:checkpoint": "The run's saved state could not be read back, so it was stopped. Start it again.",
  "internal:lease_expired": "The server running this step stopped answering, so the run was stopped. Start it again.",
  "internal:run": "The run stopped because of an error on our side. Start it again; if it keeps happening, tell your admin.",
  "internal:contract": "The server answered in a form this page does not know, perhaps after an update. Reload the page; if it keeps happening, tell your admin.",
  "internal:server": "Something went wrong on our side. Try again; if it keeps happening, tell your admin.",
  "internal:response": "Something went wrong on our side. Try again; if it keeps happening, tell your admin.",

  "unavailable:database": "The database cannot be reached right now. Try again in a moment.",
  "unavailable:network": "Cannot reach the server. Check your connection; the page retries on its own.",
  "unavailable:stream": "The live connection dropped. It reconnects on its own.",
  "unavailable:model_overloaded": "The model's provider is overloaded right now. Try again in a minute.",
  "unavailable:response": "The service is unavailable right now. Try again in a moment.",
} as const satisfies Record<ErrorCode, string>;

export type KnownErrorCode = keyof typeof sentences;

/** Every code with a sentence of its own. */
export const knownErrorCodes = Object.keys(sentences) as KnownErrorCode[];

const kindSentences: Record<ErrorKind, string> = {
  bad_request: sentences["bad_request:response"],
  unauthorized: sentences["unauthorized:response"],
  forbidden: sentences["forbidden:response"],
  not_found: sentences["not_found:response"],
  conflict: sentences["conflict:response"],
  payload_too_large: sentences["payload_too_large:response"],
  unprocessable: sentences["unprocessable:response"],
  rate_limited: sentences["rate_limited:response"],
  internal: sentences["internal:response"],
  unavailable: sentences["unavailable:response"],
};

export const hasSentence = (code: string) => Object.hasOwn(sentences, code);

/** The sentence for a code: its own, else its kind's (a code from a newer server still reads as something). */
export function sentenceFor(code: string): string {
  if (hasSentence(code)) return sentences[code as KnownErrorCode];
  const kind = code.slice(0, code.indexOf(":")) as ErrorKind;
  return Object.hasOwn(errorKinds, kind) ? kindSentences[kind] : sentences["internal:response"];
}

export interface ErrorWords {
  /** What happened, for a person. */
  sentence: string;
  /** The server's own words when they add something the sentence does not say (which field, which agent). */
  detail?: string;
  /** The stable code, shown small. */
  code?: string;
}

/** The words for something thrown: an application error by its code; anything else by the fallback. */
export function errorWords(error: unknown, fallback: string): ErrorWords {
  if (!isAppError(error)) return { sentence: fallback };
  const sentence = sentenceFor(error.code);
  const message = error.message.trim();
  const generic = !message || message === sentence || message === "Error" || Object.values(defaultErrorMessages).includes(message);
  return { sentence, code: error.code, ...(generic || error.kind === "internal" ? {} : { detail: message }) };
}

/** The words as one line of text, for places that hold only a string (a field's message, a title). */
export function errorLine(error: unknown, fallback: string): string {
  const words = errorWords(error, fallback);
  return [words.sentence, words.detail].filter(Boolean).join(" ") + (words.code ? ` (${words.code})` : "");
}
