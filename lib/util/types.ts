/** A chat prompt read from a prompt file: the system message and the user message template. */
export interface PromptTemplate {
  system: string;
  user: string;
}
