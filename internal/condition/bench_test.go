package condition

import "testing"

// benchCondition is a typical condition of about 300 bytes: read blobs
// only when a tag matches, written the way the Azure portal writes it.
const benchCondition = `(
 (
  !(ActionMatches{'Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'} AND NOT SubOperationMatches{'Blob.List'})
 )
 OR
 (
  @Resource[Microsoft.Storage/storageAccounts/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>] StringEquals 'Cascade'
 )
)`

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchCondition)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(benchCondition); err != nil {
			b.Fatal(err)
		}
	}
}
