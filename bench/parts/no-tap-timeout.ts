/**
 * Imported first by a bench script that borrows the test helpers: they load tap, whose
 * root test would end the script after 30 s. A bench runs as long as it takes.
 */
process.env.TAP_TIMEOUT = '0'
