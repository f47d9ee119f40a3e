package server

// EnvelopePath is envelopePath, for the fuzz targets' oracle of which API answers a path.
var EnvelopePath = envelopePath
