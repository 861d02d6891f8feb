/** A stylesheet imported by a classic script: its text (esbuild's text loader). */
declare module '*.css' {
  const text: string
  export default text
}
