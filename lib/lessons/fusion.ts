// Notebook 05 (fusion, Table 2): what only that notebook needs. The Table 2 verdict and its comparison with the
// paper (paperContrastSentence) are in lib/report/fusion.ts with the table they describe.
export {};
