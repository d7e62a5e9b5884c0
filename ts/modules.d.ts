/** What a Workers-style bundler gives for `import x from './file.wasm'`: the compiled module. */
declare module '*.wasm' {
  const compiled: WebAssembly.Module;
  export default compiled;
}
